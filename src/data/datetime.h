/*
 * datetime.h — date and time columns (datetime.c): a column of dates or timestamps is
 * modelled as a continuous column of seconds since 1970-01-01T00:00:00Z and written back
 * in the file's own format. A format is a pattern in a strftime-like subset:
 *
 *   %Y  year, 4 digits            %m  month 01-12 (1-2 digits read)
 *   %d  day 01-31 (1-2 read)      %H  hour 00-23 (1-2 read)
 *   %M  minute 00-59 (2 digits)   %S  second 00-60 (2 digits)
 *   %f  fraction of a second, 1-9 digits read; written with the most digits seen in the
 *       column; ".%f" may be absent from a value (read as .0), and is left out in writing
 *       when no value had a fraction
 *   %z  zone: "Z", "+HH:MM", "-HH:MM", "+HHMM" or "-HHMM"; written as the first value had it
 *   %%  a percent sign; any other byte is literal
 *
 * The ISO 8601 shapes the CSV reader recognises by itself: "%Y-%m-%d", "%Y-%m",
 * "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S.%f" (also with ' ' for 'T'; the fraction optional),
 * each optionally followed by %z. Calendar arithmetic is the proleptic Gregorian calendar
 * (days from civil date as in H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
 * public domain description), written here from that description.
 */
#ifndef GEN_DATETIME_H
#define GEN_DATETIME_H

#include <stddef.h>

#define GEN_DT_PATTERN 64

typedef enum { GEN_DT_ZONE_NONE = 0, GEN_DT_ZONE_Z, GEN_DT_ZONE_COLON, GEN_DT_ZONE_PLAIN } gen_dt_zone;

/* A column's date format: the pattern, and what writing needs that the pattern leaves open. */
typedef struct gen_dt_format {
    char pattern[GEN_DT_PATTERN]; /* "" = not a date column */
    int frac;                     /* digits written for %f (0-9) */
    int zone_style;               /* gen_dt_zone of the first value (for %z) */
    int zone_min;                 /* its offset from UTC in minutes (-1439..1439) */
} gen_dt_format;

/* Checks a user pattern; 0 when usable, else -1 with a reason in why. */
int gen_dt_pattern_check(const char *pattern, char *why, size_t cap);

/* Reads s[0..len) with `pattern`. On success returns 0 and sets *sec (UTC seconds since the
 * epoch), *frac (fraction digits seen), *zone_style and *zone_min. On failure returns the
 * 1-based byte offset in s where reading stopped (len + 1 when the text ran out or had
 * bytes left over) and sets *why to a static reason. */
int gen_dt_parse(const char *pattern, const char *s, size_t len, double *sec, int *frac,
                 int *zone_style, int *zone_min, const char **why);

/* The ISO 8601 pattern that s matches (written into pattern), or 0 when it matches none. */
int gen_dt_detect(const char *s, size_t len, char pattern[GEN_DT_PATTERN]);

/* Writes `sec` in format f (rounded to the pattern's finest unit) into buf; returns the
 * length, or 0 when it does not fit (or the year leaves 0..9999). */
int gen_dt_format_value(const gen_dt_format *f, double sec, char *buf, size_t cap);

#endif /* GEN_DATETIME_H */
