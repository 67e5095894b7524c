/*
 * datetime.c — reading, recognising and writing dates and timestamps (contracts and the
 * pattern language in datetime.h). Values are UTC seconds since 1970-01-01 as doubles:
 * whole seconds are exact for any year 0-9999, fractions keep about microseconds at today's
 * dates (a double has 53 bits), so %f with more than 6 digits is written back rounded to
 * what the double holds. Day counts follow the proleptic Gregorian calendar; the formulas
 * for days <-> (year, month, day) are those described by H. Hinnant ("chrono-Compatible
 * Low-Level Date Algorithms", howardhinnant.github.io/date_algorithms.html), written here
 * from that description. Leap seconds are not modelled (":60" reads as the next minute's
 * first second, as POSIX time does). No locale: month and day names are not supported.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "datetime.h"

/* ---- calendar ------------------------------------------------------------------------ */

static int64_t gen_dt_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Days since 1970-01-01 of a civil date (month 1-12). */
static int64_t gen_dt_days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = gen_dt_floor_div(y, 400);
    int64_t yoe = y - era * 400;                                  /* 0..399 */
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* 0..365, from March */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;          /* 0..146096 */
    return era * 146097 + doe - 719468;
}

static void gen_dt_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = gen_dt_floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int gen_dt_month_days(int64_t y, int m) {
    static const int len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : len[m - 1];
}

/* ---- patterns ------------------------------------------------------------------------ */

int gen_dt_pattern_check(const char *p, char *why, size_t cap) {
    size_t n = strlen(p);
    if (n == 0 || n >= GEN_DT_PATTERN) {
        snprintf(why, cap, "a date format must have 1 to %d characters", GEN_DT_PATTERN - 1);
        return -1;
    }
    int seen[128] = {0};
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '%') continue;
        char c = p[++i];
        if (!c || !strchr("YmdHMSfz%", c)) {
            snprintf(why, cap, "'%%%c' is not supported (use %%Y %%m %%d %%H %%M %%S %%f %%z %%%%)",
                     c ? c : ' ');
            return -1;
        }
        if (c != '%' && seen[(int)c]++) {
            snprintf(why, cap, "'%%%c' appears twice", c);
            return -1;
        }
    }
    if (!seen['Y']) {
        snprintf(why, cap, "a date format needs a year (%%Y)");
        return -1;
    }
    if ((seen['d'] && !seen['m']) || (seen['H'] && !seen['d']) || (seen['M'] && !seen['H']) ||
        (seen['S'] && !seen['M']) || (seen['f'] && !seen['S'])) {
        snprintf(why, cap, "a date format may leave out only its finest fields (year, month, "
                           "day, hour, minute, second, fraction in that order)");
        return -1;
    }
    return 0;
}

/* Reads 1..maxd digits (exactly maxd when mind == maxd). */
static int gen_dt_digits(const char *s, size_t len, size_t *i, int mind, int maxd, int64_t *v) {
    int k = 0;
    int64_t x = 0;
    while (k < maxd && *i < len && s[*i] >= '0' && s[*i] <= '9') x = x * 10 + (s[(*i)++] - '0'), k++;
    if (k < mind) return -1;
    *v = x;
    return k;
}

int gen_dt_parse(const char *pattern, const char *s, size_t len, double *sec, int *frac,
                 int *zone_style, int *zone_min, const char **why) {
    int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, se = 0, fv = 0;
    int fd = 0, zs = GEN_DT_ZONE_NONE, zm = 0;
    size_t i = 0;
    *why = "the text does not match the date format";
    for (const char *p = pattern; *p; p++) {
        size_t at = i;
        if (*p == '.' && p[1] == '%' && p[2] == 'f' && (i >= len || s[i] != '.')) {
            p += 2; /* ".%f": the fraction may be left out */
            continue;
        }
        if (*p != '%' || p[1] == '%') {
            if (*p == '%') p++;
            if (i >= len || s[i] != *p) return (int)at + 1;
            i++;
            continue;
        }
        char c = *++p;
        int64_t v = 0;
        switch (c) {
        case 'Y':
            if (gen_dt_digits(s, len, &i, 4, 4, &y) < 0) return *why = "expected a 4-digit year", (int)at + 1;
            break;
        case 'm':
            if (gen_dt_digits(s, len, &i, 1, 2, &mo) < 0 || mo < 1 || mo > 12)
                return *why = "expected a month 01-12", (int)at + 1;
            break;
        case 'd':
            if (gen_dt_digits(s, len, &i, 1, 2, &d) < 0 || d < 1 || d > 31)
                return *why = "expected a day 01-31", (int)at + 1;
            break;
        case 'H':
            if (gen_dt_digits(s, len, &i, 1, 2, &h) < 0 || h > 23)
                return *why = "expected an hour 00-23", (int)at + 1;
            break;
        case 'M':
            if (gen_dt_digits(s, len, &i, 2, 2, &mi) < 0 || mi > 59)
                return *why = "expected minutes 00-59", (int)at + 1;
            break;
        case 'S':
            if (gen_dt_digits(s, len, &i, 2, 2, &se) < 0 || se > 60)
                return *why = "expected seconds 00-60", (int)at + 1;
            break;
        case 'f': {
            int k = gen_dt_digits(s, len, &i, 1, 9, &fv);
            if (k < 0) return *why = "expected digits of a fraction of a second", (int)at + 1;
            fd = k;
            break;
        }
        case 'z':
            if (i < len && s[i] == 'Z') {
                i++, zs = GEN_DT_ZONE_Z, zm = 0;
            } else if (i < len && (s[i] == '+' || s[i] == '-')) {
                int sign = s[i++] == '-' ? -1 : 1;
                int64_t zh = 0, zmin = 0;
                if (gen_dt_digits(s, len, &i, 2, 2, &zh) < 0 || zh > 23)
                    return *why = "expected a zone offset +HH:MM", (int)at + 1;
                zs = GEN_DT_ZONE_PLAIN;
                if (i < len && s[i] == ':') i++, zs = GEN_DT_ZONE_COLON;
                if (gen_dt_digits(s, len, &i, 2, 2, &zmin) < 0 || zmin > 59)
                    return *why = "expected a zone offset +HH:MM", (int)at + 1;
                zm = sign * (int)(zh * 60 + zmin);
            } else {
                return *why = "expected a zone (Z or +HH:MM)", (int)at + 1;
            }
            break;
        default:
            return *why = "unsupported format directive", (int)at + 1;
        }
        (void)v;
    }
    if (i != len) return *why = "unexpected text after the date", (int)i + 1;
    if (d > gen_dt_month_days(y, (int)mo)) return *why = "the day does not exist in that month", 1;
    double f = 0;
    if (fd) f = (double)fv / pow(10.0, fd);
    int64_t days = gen_dt_days_from_civil(y, (int)mo, (int)d);
    *sec = (double)(days * 86400 + h * 3600 + mi * 60 + se - (int64_t)zm * 60) + f;
    *frac = fd;
    *zone_style = zs;
    *zone_min = zm;
    return 0;
}

/* ---- ISO 8601 recognition ------------------------------------------------------------ */

static int gen_dt_isdig(const char *s, size_t a, size_t n) {
    for (size_t i = a; i < a + n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

int gen_dt_detect(const char *s, size_t len, char pattern[GEN_DT_PATTERN]) {
    char p[GEN_DT_PATTERN] = "";
    size_t i;
    if (len < 7 || !gen_dt_isdig(s, 0, 4) || s[4] != '-' || !gen_dt_isdig(s, 5, 2)) return 0;
    if (len == 7) {
        strcpy(p, "%Y-%m");
        i = 7;
    } else {
        if (len < 10 || s[7] != '-' || !gen_dt_isdig(s, 8, 2)) return 0;
        strcpy(p, "%Y-%m-%d");
        i = 10;
        if (len > 10) {
            if ((s[10] != 'T' && s[10] != ' ') || len < 16 || !gen_dt_isdig(s, 11, 2) ||
                s[13] != ':' || !gen_dt_isdig(s, 14, 2))
                return 0;
            strcat(p, s[10] == 'T' ? "T%H:%M" : " %H:%M");
            i = 16;
            if (i < len && s[i] == ':') {
                if (len < 19 || !gen_dt_isdig(s, 17, 2)) return 0;
                strcat(p, ":%S.%f"); /* the fraction is optional (values of one column may
                                        differ in it) */
                i = 19;
                if (i < len && s[i] == '.') {
                    size_t k = i + 1;
                    while (k < len && s[k] >= '0' && s[k] <= '9') k++;
                    if (k == i + 1 || k - i - 1 > 9) return 0;
                    i = k;
                }
            }
            if (i < len && (s[i] == 'Z' || s[i] == '+' || s[i] == '-')) {
                strcat(p, "%z");
                i = len; /* checked by the parse below */
            }
        }
    }
    if (i != len) return 0;
    double sec;
    int fd, zs, zm;
    const char *why;
    if (gen_dt_parse(p, s, len, &sec, &fd, &zs, &zm, &why) != 0) return 0;
    memcpy(pattern, p, GEN_DT_PATTERN);
    return 1;
}

/* ---- writing ------------------------------------------------------------------------- */

int gen_dt_format_value(const gen_dt_format *f, double sec, char *buf, size_t cap) {
    const char *p = f->pattern;
    if (!isfinite(sec)) return 0;
    int has[128] = {0};
    for (const char *q = p; *q; q++)
        if (*q == '%' && q[1]) has[(int)(unsigned char)*++q] = 1;
    double local = sec + (has['z'] ? 60.0 * f->zone_min : 0.0);
    int fd = has['f'] ? f->frac : 0;
    int64_t scale = 1;
    for (int k = 0; k < fd; k++) scale *= 10;
    int64_t unit = has['S'] ? 1 : has['M'] ? 60 : has['H'] ? 3600 : 86400;
    if (fabs(local) * (double)scale > 9.0e18) return 0;
    int64_t ticks;
    if (fd) {
        ticks = llround(local * (double)scale);
    } else {
        ticks = llround(local / (double)unit) * unit;
        if (!has['d']) ticks = (int64_t)floor(local / 86400.0) * 86400; /* months: the one it falls in */
    }
    int64_t whole = gen_dt_floor_div(ticks, scale), fv = ticks - whole * scale;
    int64_t days = gen_dt_floor_div(whole, 86400), rem = whole - days * 86400;
    int64_t y;
    int mo, d;
    gen_dt_civil_from_days(days, &y, &mo, &d);
    if (y < 0 || y > 9999) return 0;
    int h = (int)(rem / 3600), mi = (int)(rem / 60 % 60), se = (int)(rem % 60);
    size_t k = 0;
    for (; *p; p++) {
        char tmp[32];
        int n;
        if (*p == '.' && p[1] == '%' && p[2] == 'f' && fd == 0) { /* no fraction: no '.' */
            p += 2;
            continue;
        }
        if (*p != '%') {
            tmp[0] = *p, n = 1;
        } else {
            switch (*++p) {
            case 'Y': n = snprintf(tmp, sizeof tmp, "%04d", (int)y); break;
            case 'm': n = snprintf(tmp, sizeof tmp, "%02d", mo); break;
            case 'd': n = snprintf(tmp, sizeof tmp, "%02d", d); break;
            case 'H': n = snprintf(tmp, sizeof tmp, "%02d", h); break;
            case 'M': n = snprintf(tmp, sizeof tmp, "%02d", mi); break;
            case 'S': n = snprintf(tmp, sizeof tmp, "%02d", se); break;
            case 'f': n = snprintf(tmp, sizeof tmp, "%0*lld", fd, (long long)fv); break;
            case 'z': {
                int z = f->zone_min, a = z < 0 ? -z : z;
                if (f->zone_style == GEN_DT_ZONE_Z || (f->zone_style == GEN_DT_ZONE_NONE && z == 0))
                    n = snprintf(tmp, sizeof tmp, "Z");
                else
                    n = snprintf(tmp, sizeof tmp, f->zone_style == GEN_DT_ZONE_PLAIN
                                                      ? "%c%02d%02d" : "%c%02d:%02d",
                                 z < 0 ? '-' : '+', a / 60, a % 60);
                break;
            }
            default: tmp[0] = '%', n = 1; break;
            }
        }
        if (n < 0 || k + (size_t)n + 1 > cap) return 0;
        memcpy(buf + k, tmp, (size_t)n);
        k += (size_t)n;
    }
    buf[k] = 0;
    return (int)k;
}
