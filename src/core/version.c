/*
 * version.c — the library's version (genesis.h: GENESIS_VERSION_NUMBER, _STRING), as the
 * shared library that is loaded reports it, which may differ from the header a program was
 * compiled with.
 */
#include "internal.h"

unsigned genesis_version_number(void) { return GENESIS_VERSION_NUMBER; }
const char *genesis_version_string(void) { return GENESIS_VERSION_STRING; }
