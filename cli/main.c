/*
 * main.c — the `genesis` command: generate | fit | sample | estimate | evaluate | inspect |
 * info, each in its own cmd_*.c; --help, --version. Every command parses its flags with the one
 * table-driven parser (args.c), whose model settings come from the library's parameter table.
 * Exit codes: 0 success, 1 error, 2 usage error. Errors read "genesis: error: <what>".
 */
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} COMMANDS[] = {
    {"generate", cmd_generate}, {"fit", cmd_fit},           {"sample", cmd_sample},
    {"info", cmd_info},         {"evaluate", cmd_evaluate}, {"estimate", cmd_estimate},
    {"inspect", cmd_inspect},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        cli_help(NULL, 0);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    int help = !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help");
    if (help && argc > 2) { /* help COMMAND [args] = COMMAND [args] --help */
        argv[argc] = "--help";
        cmd = argv[2];
        argv++;
    } else if (help) {
        cli_help(NULL, 0);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version")) {
        printf("genesis %s\n", genesis_version_string());
        return 0;
    }
    if (genesis_version_number() != GENESIS_VERSION_NUMBER)
        fprintf(stderr, "genesis: warning: built with header %s but running library %s\n",
                GENESIS_VERSION_STRING, genesis_version_string());
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(cmd, COMMANDS[i].name)) return COMMANDS[i].run(argc - 1, argv + 1);
    return usage_error(NULL, "unknown command '%s' (commands: generate, fit, sample, estimate, "
                             "evaluate, inspect, info)", cmd);
}
