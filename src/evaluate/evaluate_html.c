/*
 * evaluate_html.c — the HTML report of an evaluation: one self-contained file (inline CSS
 * and inline SVG; no script, no font or image from the network) that a person reads top to
 * bottom:
 *   1. headline cards: quality (all pairs, and the 2026 strong-pair mode), detection,
 *      validity, privacy, usefulness, each with a one-line meaning and a colour band
 *      (green >= 0.8, amber >= 0.6, red below; exact-copy rate the other way round);
 *   2. the pair-trend heat map (column names on both axes, the robust-binned all-pairs score
 *      per cell with the SDMetrics-binned one in its tooltip, strong real pairs outlined, a
 *      colour scale);
 *   3. real vs synthetic distribution of every column (histogram overlay or bars) with its
 *      shape and validity score;
 *   4. details: privacy counts, detection folds, TSTR models; the definitions used.
 * With a holdout every privacy and usefulness line stands beside its real-vs-real baseline
 * (the holdout scored as if it were synthetic; trained on real rows) and is coloured
 * against it; a line that is low for a reason of the table (a saturated detection, a macro
 * F1 over many classes, a table of repeated rows) says the reason.
 * The page is built in memory, then written under a temporary name and renamed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evaluate.h"

/* ---- string builder ------------------------------------------------------------------------ */

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} gen_sb;

static void sb_vprintf(gen_sb *b, const char *fmt, va_list ap) {
    if (b->oom) return;
    for (;;) {
        va_list cp;
        va_copy(cp, ap);
        int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, cp);
        va_end(cp);
        if (w < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->n + (size_t)w < b->cap) {
            b->n += (size_t)w;
            return;
        }
        size_t nc = b->cap ? b->cap : 65536;
        while (nc < b->n + (size_t)w + 1) nc *= 2;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void sb(gen_sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Appends text with HTML special characters escaped; at most `max` bytes of it (0 = all),
 * cut at a UTF-8 boundary with an ellipsis. */
static void sb_esc(gen_sb *b, const char *s, size_t max) {
    size_t n = strlen(s), cut = n;
    if (max && n > max) {
        cut = max;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80) cut--;
    }
    for (size_t i = 0; i < cut; i++) {
        switch (s[i]) {
        case '<': sb(b, "&lt;"); break;
        case '>': sb(b, "&gt;"); break;
        case '&': sb(b, "&amp;"); break;
        case '"': sb(b, "&quot;"); break;
        case '\'': sb(b, "&#39;"); break;
        default: sb(b, "%c", s[i]); break;
        }
    }
    if (cut < n) sb(b, "&#8230;");
}

/* ---- colours and numbers ------------------------------------------------------------------ */

/* Score colour: red (0.5 and below) -> amber (0.7) -> yellow-green (0.85) -> green (1). */
static void gen_ev_color(double s, char out[8]) {
    static const double at[] = {0.0, 0.5, 0.7, 0.85, 1.0};
    static const int rgb[][3] = {{165, 0, 38}, {215, 48, 39}, {253, 174, 97}, {166, 217, 106},
                                 {26, 152, 80}};
    if (!isfinite(s)) {
        snprintf(out, 8, "#cccccc");
        return;
    }
    if (s < 0) s = 0;
    if (s > 1) s = 1;
    int k = 0;
    while (k < 3 && s > at[k + 1]) k++;
    double t = (s - at[k]) / (at[k + 1] - at[k]);
    int c[3];
    for (int j = 0; j < 3; j++) c[j] = (int)lround(rgb[k][j] + t * (rgb[k + 1][j] - rgb[k][j]));
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* Colour band of a score: good at or above `good`, fair at or above `fair`, else poor (for
 * a lower-is-better score the other way round). A reading aid, not an SDMetrics definition. */
static const char *gen_ev_band2(double s, double good, double fair, int lower_is_better) {
    if (!isfinite(s)) return "na";
    if (lower_is_better) return s <= good ? "good" : s <= fair ? "fair" : "poor";
    return s >= good ? "good" : s >= fair ? "fair" : "poor";
}

static const char *gen_ev_band(double s, int lower_is_better) {
    return lower_is_better ? gen_ev_band2(s, 0.001, 0.01, 1) : gen_ev_band2(s, 0.8, 0.6, 0);
}

static void gen_ev_fmt(char *buf, size_t cap, double v, int pct) {
    if (v < 0 && v > -5e-4) v = 0; /* 1 - a total variation of 2 rounds to -1e-17 */
    if (!isfinite(v)) snprintf(buf, cap, "n/a");
    else if (pct) snprintf(buf, cap, "%.1f%%", 100 * v);
    else snprintf(buf, cap, "%.3f", v);
}

/* A compact axis label for a value. */
static void gen_ev_tick(char *buf, size_t cap, double v) {
    double a = fabs(v);
    if (a >= 1e6 || (a > 0 && a < 1e-3)) snprintf(buf, cap, "%.3g", v);
    else if (a >= 100 || v == floor(v)) snprintf(buf, cap, "%.0f", v);
    else snprintf(buf, cap, "%.3g", v);
}

/* ---- page parts ----------------------------------------------------------------------------- */

static const char *gen_ev_css =
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:0;background:"
    "#f4f5f7;color:#1f2328}"
    "main{max-width:1320px;margin:0 auto;padding:24px 28px 40px}"
    "h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:34px 0 6px;border-bottom:1px solid "
    "#d0d7de;padding-bottom:4px}"
    ".sub{color:#57606a;font-size:14px;margin:0 0 18px}.sub b{color:#1f2328}"
    ".help{color:#57606a;font-size:13px;margin:4px 0 12px;max-width:980px;line-height:1.45}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:14px}"
    ".card{background:#fff;border-radius:10px;padding:14px 16px;border-top:6px solid #ccc;"
    "box-shadow:0 1px 3px rgba(0,0,0,.08)}"
    ".card.good{border-top-color:#1a9850}.card.fair{border-top-color:#f39c12}"
    ".card.poor{border-top-color:#d73027}.card.na{border-top-color:#bbb}"
    ".card h3{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:#57606a;"
    "margin:0 0 6px}"
    ".big{font-size:34px;font-weight:700;line-height:1.1}.card .what{font-size:12.5px;color:#57606a;"
    "margin-top:6px;line-height:1.35}"
    ".card.hero{grid-column:span 2}.hero .big{font-size:44px}"
    "h3.group{font-size:15px;color:#57606a;margin:22px 0 8px;font-weight:600}"
    ".hm{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}"
    ".panel h4{margin:0 0 8px;font-size:15px}"
    ".tag{display:inline-block;font-size:12px;font-weight:600;padding:1px 7px;border-radius:9px;"
    "margin-left:6px;vertical-align:middle}"
    ".tag.good{background:#dafbe1;color:#116329}.tag.fair{background:#fff1d6;color:#8a5300}"
    ".tag.poor{background:#ffebe9;color:#a40e26}.tag.na{background:#eee;color:#666}"
    ".panel{background:#fff;border-radius:10px;padding:14px 16px;box-shadow:0 1px 3px "
    "rgba(0,0,0,.08)}"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:14px}"
    ".chart h4{margin:0;font-size:15px}.chart .m{font-size:12.5px;color:#57606a;margin:2px 0 4px}"
    "table{border-collapse:collapse;font-size:13.5px}td,th{padding:4px 10px;text-align:left;"
    "border-bottom:1px solid #eaeef2}th{color:#57606a;font-weight:600}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".legend{font-size:13px;color:#57606a}.sw{display:inline-block;width:12px;height:12px;"
    "vertical-align:-1px;margin:0 4px 0 12px;border-radius:2px}"
    "footer{font-size:12px;color:#57606a;margin-top:30px;line-height:1.5}";

static void gen_ev_card(gen_sb *b, const char *title, double v, int pct, const char *band,
                        const char *what, int hero) {
    char num[32];
    gen_ev_fmt(num, sizeof num, v, pct);
    const char *word = !strcmp(band, "good") ? "good" : !strcmp(band, "fair") ? "fair"
                       : !strcmp(band, "poor") ? "poor" : "n/a";
    sb(b, "<div class=\"card %s%s\"><h3>%s</h3><div class=\"big\">%s<span class=\"tag %s\">%s"
          "</span></div><div class=\"what\">%s</div></div>\n",
       band, hero ? " hero" : "", title, num, band, word, what);
}

static void gen_ev_heatmap(gen_sb *b, const genesis_eval_result *r) {
    int n = r->ncols;
    if (r->npairs == 0) {
        sb(b, "<p class=\"help\">Only one column: no pairs.</p>");
        return;
    }
    /* score and strength per cell */
    int cell = n <= 12 ? 46 : n <= 20 ? 34 : n <= 40 ? 20 : 12;
    int label_w = 0;
    for (int c = 0; c < n; c++) {
        int l = (int)strlen(r->names[c]);
        if (l > 22) l = 22;
        if (l > label_w) label_w = l;
    }
    int left = 12 + label_w * 7, top = 14 + label_w * 6;
    int W = left + n * cell + 150, H = top + n * cell + 20;
    sb(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "font-family=\"Helvetica,Arial,sans-serif\" role=\"img\" aria-label=\"pair trend "
          "heat map\">\n", W, H);
    const char *fs = cell >= 34 ? "11" : cell >= 20 ? "9" : "0";
    for (int k = 0; k < r->npairs; k++) {
        const gen_ev_pair_res *p = &r->pairs[k];
        for (int side = 0; side < 2; side++) {
            int row = side ? p->a : p->b, col = side ? p->b : p->a;
            char color[8];
            double v = p->score_robust;
            gen_ev_color(v, color);
            int x = left + col * cell, y = top + row * cell;
            sb(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                  "stroke=\"%s\" stroke-width=\"%s\"><title>",
               x + 1, y + 1, cell - 2, cell - 2, color, p->meets ? "#111" : "#fff",
               p->meets ? "2.5" : "1");
            sb_esc(b, r->names[p->a], 0);
            sb(b, " ~ ");
            sb_esc(b, r->names[p->b], 0);
            char num[32], num2[32];
            gen_ev_fmt(num, sizeof num, v, 0);
            gen_ev_fmt(num2, sizeof num2, p->score, 0);
            if (v != p->score && !(isnan(v) && isnan(p->score)))
                sb(b, ": %s %s robust binning (SDMetrics binning: %s)%s</title></rect>\n",
                   p->metric, num, num2, p->meets ? " (strong real relation)" : "");
            else
                sb(b, ": %s %s%s</title></rect>\n", p->metric, num,
                   p->meets ? " (strong real relation)" : "");
            if (fs[0] != '0' && isfinite(v))
                sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"%s\" text-anchor=\"middle\" "
                      "fill=\"%s\">%.2f</text>\n",
                   x + cell / 2, y + cell / 2 + 4, fs, v < 0.6 ? "#fff" : "#111",
                   v < 0 ? 0.0 : v);
        }
    }
    for (int c = 0; c < n; c++) {
        int x = left + c * cell, y = top + c * cell;
        sb(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#e6e8eb\"/>\n", x + 1,
           y + 1, cell - 2, cell - 2);
        sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\" fill=\"#1f2328\">",
           left - 6, y + cell / 2 + 4);
        sb_esc(b, r->names[c], 22);
        sb(b, "</text>\n<text transform=\"translate(%d,%d) rotate(-50)\" font-size=\"12\" "
              "fill=\"#1f2328\">", x + cell / 2 + 2, top - 6);
        sb_esc(b, r->names[c], 22);
        sb(b, "</text>\n");
    }
    /* colour scale */
    int lx = left + n * cell + 30, ly = top, lh = n * cell < 160 ? 160 : n * cell;
    if (lh > 320) lh = 320;
    sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#57606a\">similarity</text>\n", lx,
       ly - 6);
    for (int k = 0; k < 50; k++) {
        char color[8];
        gen_ev_color(1.0 - k / 49.0, color);
        sb(b, "<rect x=\"%d\" y=\"%d\" width=\"18\" height=\"%d\" fill=\"%s\"/>\n", lx,
           ly + k * lh / 50, lh / 50 + 1, color);
    }
    for (int k = 0; k <= 4; k++)
        sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#1f2328\">%.2f</text>\n", lx + 24,
           ly + k * lh / 4 + 4, 1.0 - k * 0.25);
    sb(b, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"#fff\" stroke=\"#111\" "
          "stroke-width=\"2.5\"/><text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#1f2328\">"
          "strong in real</text>\n",
       lx, ly + lh + 16, lx + 22, ly + lh + 28);
    sb(b, "</svg>\n");
}

/* The strongly related real pairs, worst reproduced first. */
static void gen_ev_strong_pairs(gen_sb *b, const genesis_eval_result *r) {
    int n = 0;
    int *idx = malloc((size_t)(r->npairs ? r->npairs : 1) * sizeof *idx);
    if (!idx) {
        b->oom = 1;
        return;
    }
    for (int k = 0; k < r->npairs; k++)
        if (r->pairs[k].meets) idx[n++] = k;
    for (int a = 1; a < n; a++) /* insertion sort by score, NaN last */
        for (int c = a; c > 0; c--) {
            double x = r->pairs[idx[c]].score, y = r->pairs[idx[c - 1]].score;
            if (!(isnan(y) ? !isnan(x) : x < y)) break;
            int t = idx[c];
            idx[c] = idx[c - 1];
            idx[c - 1] = t;
        }
    sb(b, "<div class=\"panel\"><h4>Strongly related pairs in the real data (%d of %d)</h4>", n,
       r->npairs);
    if (n == 0) {
        sb(b, "<p class=\"help\">No pair passes the thresholds: the strong-pair quality score "
              "equals the column shapes score.</p></div>\n");
        free(idx);
        return;
    }
    sb(b, "<table><tr><th>columns</th><th>real strength</th><th>similarity</th></tr>\n");
    for (int k = 0; k < n && k < 20; k++) {
        const gen_ev_pair_res *p = &r->pairs[idx[k]];
        char col[8], num[32];
        gen_ev_color(p->score, col);
        gen_ev_fmt(num, sizeof num, p->score, 0);
        sb(b, "<tr><td>");
        sb_esc(b, r->names[p->a], 24);
        sb(b, " &times; ");
        sb_esc(b, r->names[p->b], 24);
        if (p->metric[0] == 'C' && p->metric[1] == 'o' && p->metric[2] == 'r')
            sb(b, "</td><td class=\"n\">Pearson %+.2f</td>", p->real_corr);
        else
            sb(b, "</td><td class=\"n\">Cram&eacute;r's V %.2f</td>", p->real_assoc);
        sb(b, "<td class=\"n\"><span class=\"sw\" style=\"background:%s;margin-left:0\"></span>"
              "%s</td></tr>\n", col, num);
    }
    sb(b, "</table>");
    if (n > 20) sb(b, "<p class=\"help\">%d more, all better reproduced.</p>", n - 20);
    sb(b, "</div>\n");
    free(idx);
}

static void gen_ev_chart_continuous(gen_sb *b, const gen_ev_column_res *cr) {
    int W = 400, H = 170, l = 40, rgt = 10, t = 8, bot = 24;
    int pw = W - l - rgt, ph = H - t - bot;
    double mx = 0;
    for (int k = 0; k < cr->nbins; k++) {
        mx = cr->real_freq[k] > mx ? cr->real_freq[k] : mx;
        mx = cr->syn_freq[k] > mx ? cr->syn_freq[k] : mx;
    }
    if (mx <= 0) mx = 1;
    sb(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "font-family=\"Helvetica,Arial,sans-serif\">\n", W, H);
    double bw = (double)pw / cr->nbins;
    for (int k = 0; k < cr->nbins; k++) {
        double h = cr->real_freq[k] / mx * ph;
        sb(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#7fb3e0\"/>\n",
           l + k * bw + 0.5, t + ph - h, bw - 1, h);
    }
    /* synthetic as a step outline */
    sb(b, "<path d=\"M%d %d", l, t + ph);
    for (int k = 0; k < cr->nbins; k++) {
        double y = t + ph - cr->syn_freq[k] / mx * ph;
        sb(b, " L%.1f %.1f L%.1f %.1f", l + k * bw, y, l + (k + 1) * bw, y);
    }
    sb(b, " L%d %d\" fill=\"none\" stroke=\"#e8590c\" stroke-width=\"2\"/>\n", l + pw, t + ph);
    sb(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", l, t + ph, l + pw,
       t + ph);
    double ticks[3] = {cr->vmin, 0.5 * (cr->vmin + cr->vmax), cr->vmax};
    for (int k = 0; k < 3; k++) {
        char a[32];
        if (k == 1 && cr->vmax - cr->vmin <= 0) continue;
        gen_ev_tick(a, sizeof a, ticks[k]);
        double px = l + (ticks[k] - cr->lo) / (cr->hi - cr->lo) * pw;
        sb(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\"/>", px,
           t + ph, px, t + ph + 4);
        sb(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"%s\" fill=\"#444\">"
              "%s</text>\n", px, H - 8, k == 0 ? "start" : k == 1 ? "middle" : "end", a);
    }
    sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\" fill=\"#444\">%.0f%%</text>\n",
       l - 4, t + 8, 100 * mx);
    sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\" fill=\"#444\">0</text>\n",
       l - 4, t + ph);
    sb(b, "</svg>\n");
}

static void gen_ev_chart_categorical(gen_sb *b, const gen_ev_column_res *cr) {
    int W = 400, l = 130, rgt = 44, rowh = 17;
    int H = 6 + cr->nbins * rowh + 4;
    int pw = W - l - rgt;
    double mx = 0;
    for (int k = 0; k < cr->nbins; k++) {
        mx = cr->real_freq[k] > mx ? cr->real_freq[k] : mx;
        mx = cr->syn_freq[k] > mx ? cr->syn_freq[k] : mx;
    }
    if (mx <= 0) mx = 1;
    sb(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "font-family=\"Helvetica,Arial,sans-serif\">\n", W, H);
    for (int k = 0; k < cr->nbins; k++) {
        int y = 6 + k * rowh;
        sb(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\" fill=\"#1f2328\">",
           l - 6, y + 11);
        sb_esc(b, cr->bin_label[k], 20);
        sb(b, "<title>");
        sb_esc(b, cr->bin_label[k], 0);
        sb(b, "</title></text>\n");
        double wr = cr->real_freq[k] / mx * pw, ws = cr->syn_freq[k] / mx * pw;
        sb(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" fill=\"#7fb3e0\"/>\n", l, y + 1, wr);
        sb(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"7\" fill=\"#e8590c\"/>\n", l, y + 8, ws);
        sb(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#57606a\">%.1f%%</text>\n",
           l + (wr > ws ? wr : ws) + 4, y + 12, 100 * cr->real_freq[k]);
    }
    sb(b, "<line x1=\"%d\" y1=\"4\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>\n", l, l, H - 2);
    sb(b, "</svg>\n");
}

static void gen_ev_columns(gen_sb *b, const genesis_eval_result *r) {
    sb(b, "<div class=\"grid\">\n");
    for (int c = 0; c < r->ncols; c++) {
        const gen_ev_column_res *cr = &r->cols[c];
        char s1[32], s2[32], m1[32], m2[32];
        gen_ev_fmt(s1, sizeof s1, cr->shape, 0);
        gen_ev_fmt(s2, sizeof s2, cr->validity, 0);
        sb(b, "<div class=\"panel chart\"><h4>");
        sb_esc(b, r->names[c], 60);
        sb(b, " <span class=\"tag %s\">%s %s</span></h4>", gen_ev_band(cr->shape, 0),
           r->continuous[c] ? "KS" : "TV", s1);
        gen_ev_fmt(m1, sizeof m1, cr->real_missing, 1);
        gen_ev_fmt(m2, sizeof m2, cr->syn_missing, 1);
        sb(b, "<div class=\"m\">%s &middot; %s %s &middot; missing %s real / %s synthetic</div>\n",
           r->continuous[c] ? "continuous" : "categorical",
           r->continuous[c] ? "in real range" : "real categories", s2, m1, m2);
        if (!cr->nbins) sb(b, "<p class=\"help\">no values</p>");
        else if (r->continuous[c]) gen_ev_chart_continuous(b, cr);
        else gen_ev_chart_categorical(b, cr);
        sb(b, "</div>\n");
    }
    sb(b, "</div>\n");
}

/* The papers' scores (evaluate_fidelity.c): XGBoost detection, alpha-precision,
 * beta-recall, the DCR share, with the sentence on which scores are saturated. */
static void gen_ev_papers(gen_sb *b, const genesis_eval_result *r) {
    const double *s = r->score;
    int q = (r->parts & GENESIS_EVAL_PART_QUALITY) != 0;
    int det = (r->parts & GENESIS_EVAL_PART_DETECTION) != 0;
    int dcr = (r->parts & GENESIS_EVAL_PART_PRIVACY) && r->hold_rows;
    if (!q && !det && !dcr) return;
    sb(b, "<h3 class=\"group\">The papers' scores (TabSyn, TabDiff)</h3>"
          "<p class=\"help\">The logistic detection above is saturated: a linear model on "
          "one-hot features cannot see the interactions between columns that give most "
          "generators away, so it scores near 1 for good and mediocre tables alike. Gradient-"
          "boosted trees can, and alpha-precision / beta-recall ask whether synthetic rows lie "
          "where real rows lie and cover all of them; these are the scores the recent papers "
          "compare.</p><div class=\"cards\">\n");
    if (det) {
        if (r->xgb_available) {
            char what[300], auc[32];
            gen_ev_fmt(auc, sizeof auc, r->xgb_mean_auc, 0);
            snprintf(what, sizeof what,
                     "Can gradient-boosted trees (XGBoost, 3 folds) tell real rows from "
                     "synthetic rows? 1 = they cannot, 0 = always. Mean ROC AUC %s "
                     "(0.5 = indistinguishable).", auc);
            gen_ev_card(b, "Detection (XGBoost)", s[GENESIS_EVAL_DETECTION_XGBOOST], 0,
                        gen_ev_band(s[GENESIS_EVAL_DETECTION_XGBOOST], 0), what, 0);
        } else {
            gen_ev_card(b, "Detection (XGBoost)", NAN, 0, "na",
                        "not available: install libxgboost-dev (scripts/setup.sh) and "
                        "rebuild.", 0);
        }
    }
    if (q) {
        gen_ev_card(b, "&alpha;-precision", s[GENESIS_EVAL_ALPHA_PRECISION], 0,
                    gen_ev_band(s[GENESIS_EVAL_ALPHA_PRECISION], 0),
                    "Do synthetic rows fall where real rows are dense, in the right "
                    "proportions? (synthcity's naive form, as TabSyn reports it.)", 0);
        gen_ev_card(b, "&beta;-recall", s[GENESIS_EVAL_BETA_RECALL], 0,
                    gen_ev_band2(s[GENESIS_EVAL_BETA_RECALL], 0.4, 0.25, 0),
                    "Do synthetic rows cover the real rows' variety? A fresh sample of the real "
                    "distribution scores about 0.5 here (a copy scores 1).", 0);
    }
    if (dcr) {
        double v = s[GENESIS_EVAL_DCR_SHARE_EQUAL];
        double dev = isfinite(v) ? fabs(v - 0.5) : NAN;
        gen_ev_card(b, "DCR share", v, 1, gen_ev_band2(dev, 0.03, 0.1, 1),
                    "Share of synthetic rows closer to a training row than to any holdout row "
                    "(L1), brought to tables of one size. 50% is ideal: "
                    "no closer to the rows it learned from than to unseen ones; far above 50% = "
                    "memorising. (TabSyn's call on the whole tables is in the JSON; it leans "
                    "above 50% when the training table is the larger.)", 0);
    }
    sb(b, "</div>\n");
}

static void gen_ev_page(gen_sb *b, const genesis_eval_result *r) {
    const double *s = r->score;
    char x[64], y[64];
    sb(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
          "<title>Synthetic data report</title><style>%s</style></head><body><main>\n",
       gen_ev_css);
    sb(b, "<h1>Synthetic data report</h1><p class=\"sub\">Synthetic <b>");
    sb_esc(b, r->src_syn ? r->src_syn : "(table)", 120);
    sb(b, "</b> (%lld rows) compared with real <b>", (long long)r->syn_rows);
    sb_esc(b, r->src_real ? r->src_real : "(table)", 120);
    sb(b, "</b> (%lld rows)", (long long)r->real_rows);
    if (r->hold_rows) {
        sb(b, " and holdout <b>");
        sb_esc(b, r->src_hold ? r->src_hold : "(table)", 120);
        sb(b, "</b> (%lld rows)", (long long)r->hold_rows);
    }
    sb(b, ", %d columns. Scores run from 0 to 1; higher is better.</p>\n", r->ncols);

    /* headline: fidelity first (detection beside quality: the all-pairs score cannot see
     * a table whose marginals are right and relations wrong), then privacy, usefulness */
    sb(b, "<div class=\"cards\">\n");
    gen_ev_card(b, "Quality (all pairs)", s[GENESIS_EVAL_QUALITY], 0,
                gen_ev_band(s[GENESIS_EVAL_QUALITY], 0),
                "SDMetrics quality score: mean of column shapes and column pair trends over "
                "every pair of columns (how scores were published before 2026).", 1);
    {
        char what[400];
        snprintf(what, sizeof what,
                 "The same, but pair trends only over the %d column pairs that are strongly "
                 "related in the real data (SDMetrics 2026 default): the relations that matter.",
                 r->npairs_meeting);
        gen_ev_card(b, "Quality (strong pairs)", s[GENESIS_EVAL_QUALITY_THRESHOLD], 0,
                    gen_ev_band(s[GENESIS_EVAL_QUALITY_THRESHOLD], 0), what, 1);
    }
    {
        char what[600];
        int n = snprintf(what, sizeof what,
                         "Can a logistic regression tell real rows from synthetic rows? 1 = it "
                         "cannot (good), 0 = it always can. Sees relations the all-pairs score "
                         "misses.");
        if (n > 0 && (size_t)n < sizeof what && s[GENESIS_EVAL_DETECTION] >= 0.9)
            snprintf(what + n, sizeof what - (size_t)n,
                     " Saturated here: a linear model on one-hot features misses the "
                     "interactions between columns, so it scores near 1 for good and mediocre "
                     "tables alike%s.", r->xgb_available ? "; XGBoost detection below is the "
                                                          "sharper test" : "");
        gen_ev_card(b, "Detection", s[GENESIS_EVAL_DETECTION], 0,
                    gen_ev_band(s[GENESIS_EVAL_DETECTION], 0), what, 1);
    }
    sb(b, "</div>\n<h3 class=\"group\">Fidelity in detail</h3><div class=\"cards\">\n");
    gen_ev_card(b, "Column shapes", s[GENESIS_EVAL_COLUMN_SHAPES], 0,
                gen_ev_band(s[GENESIS_EVAL_COLUMN_SHAPES], 0),
                "Each column's distribution (KS complement / TV complement), mean over columns.",
                0);
    gen_ev_card(b, "Pair trends (all)", s[GENESIS_EVAL_PAIR_TRENDS], 0,
                gen_ev_band(s[GENESIS_EVAL_PAIR_TRENDS], 0),
                "Correlation / contingency similarity, mean over every pair.", 0);
    gen_ev_card(b, "Pair trends (strong)", s[GENESIS_EVAL_PAIR_TRENDS_THRESHOLD], 0,
                gen_ev_band(s[GENESIS_EVAL_PAIR_TRENDS_THRESHOLD], 0),
                "The same over the strongly related real pairs only (outlined in the heat map).",
                0);
    gen_ev_card(b, "Validity", s[GENESIS_EVAL_VALIDITY], 0,
                gen_ev_band2(s[GENESIS_EVAL_VALIDITY], 0.95, 0.8, 0),
                "Values inside the real ranges and categories, same column types (SDMetrics "
                "diagnostic report).", 0);
    sb(b, "</div>\n");
    gen_ev_papers(b, r);
    if (r->parts & GENESIS_EVAL_PART_PRIVACY) {
        sb(b, "<h3 class=\"group\">Privacy &mdash; leak checks, not a proof of anonymity</h3>"
              "<div class=\"cards\">\n");
        char what[700], bx[32], dup[32];
        int hb = r->has_baseline;
        double ec = s[GENESIS_EVAL_EXACT_COPY_RATE], nrs = s[GENESIS_EVAL_NEW_ROW_SYNTHESIS];
        double dcr = s[GENESIS_EVAL_DCR_BASELINE];
        gen_ev_fmt(dup, sizeof dup,
                   r->real_rows ? (double)r->real_dup_rows / (double)r->real_rows : NAN, 1);
        gen_ev_fmt(bx, sizeof bx, r->base_exact_copy_rate, 1);
        if (hb)
            snprintf(what, sizeof what,
                     "Share of synthetic rows identical to a real row. Unseen real rows (the "
                     "holdout) score <b>%s</b> here, and %s of the real rows repeat another "
                     "real row: colour against the holdout's value.", bx, dup);
        else
            snprintf(what, sizeof what,
                     "Share of synthetic rows identical to a real row. Lower is better; %s of "
                     "the real rows repeat another real row (give a holdout to see what "
                     "unseen real rows score).", dup);
        gen_ev_card(b, "Exact copies", ec, 1,
                    hb ? gen_ev_band2(ec - r->base_exact_copy_rate, 0.01, 0.05, 1)
                       : gen_ev_band(ec, 1), what, 0);
        gen_ev_fmt(bx, sizeof bx, r->base_new_row_synthesis, 0);
        if (hb)
            snprintf(what, sizeof what,
                     "Share of synthetic rows that match no real row (numbers within 1%%). "
                     "The holdout scores <b>%s</b>: colour against that.", bx);
        else
            snprintf(what, sizeof what,
                     "Share of synthetic rows that match no real row (numbers within 1%%).");
        gen_ev_card(b, "New rows", nrs, 0,
                    hb ? gen_ev_band2(r->base_new_row_synthesis - nrs, 0.01, 0.05, 1)
                       : gen_ev_band2(nrs, 0.99, 0.9, 0), what, 0);
        gen_ev_fmt(bx, sizeof bx, r->base_dcr_baseline, 0);
        if (hb)
            snprintf(what, sizeof what,
                     "Distance to the closest real row, relative to random rows: 1 = as far "
                     "from the real rows as random data. Real rows are not that far either: "
                     "the holdout scores <b>%s</b>; colour: share of that reached.", bx);
        else
            snprintf(what, sizeof what,
                     "Distance to the closest real row, relative to random rows: 1 = as far "
                     "from the real rows as random data (real rows themselves score well "
                     "below 1; give a holdout to see their value).");
        double dr = r->base_dcr_baseline > 0 ? dcr / r->base_dcr_baseline : NAN;
        gen_ev_card(b, "DCR vs random", dcr, 0,
                    hb ? gen_ev_band2(dr, 0.9, 0.75, 0) : gen_ev_band2(dcr, 0.5, 0.2, 0), what,
                    0);
        if (r->hold_rows)
            gen_ev_card(b, "DCR overfitting", s[GENESIS_EVAL_DCR_OVERFITTING], 0,
                        gen_ev_band(s[GENESIS_EVAL_DCR_OVERFITTING], 0),
                        "1 = synthetic rows are no closer to the training rows than to unseen "
                        "holdout rows (0 = every row hugs a training row).", 0);
        sb(b, "</div>\n");
    }
    if (r->ntstr) {
        char what[1000], why[400];
        gen_ev_tstr_reason(r, why, sizeof why);
        sb(b, "<h3 class=\"group\">Usefulness &mdash; train on synthetic, test on real</h3>"
              "<div class=\"cards\">\n");
        const char *m = r->positive ? "F1" : "Macro F1";
        for (int k = 0; k < r->ntstr; k++) {
            double syn = r->tstr[k].synthetic, real = r->tstr[k].real;
            double ratio = real > 0 ? syn / real : NAN;
            gen_ev_fmt(x, sizeof x, real, 0);
            snprintf(what, sizeof what,
                     "%s on the holdout of a %s trained on synthetic rows; trained on the real "
                     "rows it scores <b>%s</b>. Colour: share of that kept.%s%s%s", m,
                     k == 0 ? "logistic regression" : "small neural network (MLP)", x,
                     why[0] ? " Low for a reason: " : "", why, why[0] ? "." : "");
            gen_ev_card(b, k == 0 ? "TSTR logistic regression" : "TSTR MLP", syn, 0,
                        gen_ev_band2(ratio, 0.9, 0.75, 0), what, 0);
        }
        double xa = s[GENESIS_EVAL_TSTR_XGBOOST_AUC], xr = s[GENESIS_EVAL_TRTR_XGBOOST_AUC];
        if (r->xgb_available && r->mle_binary) {
            gen_ev_fmt(x, sizeof x, xr, 0);
            snprintf(what, sizeof what,
                     "ROC AUC on the holdout of XGBoost trained on synthetic rows (TabSyn's "
                     "36-point grid, the papers' MLE score); trained on the real rows: %s. "
                     "Colour: share of that kept.", x);
            gen_ev_card(b, "TSTR XGBoost (AUC)", xa, 0,
                        gen_ev_band2(xr > 0 ? xa / xr : NAN, 0.95, 0.85, 0), what, 0);
        }
        sb(b, "</div>\n");
    }

    /* pair trends */
    gen_ev_fmt(x, sizeof x, r->pair_trends_robust, 0);
    gen_ev_fmt(y, sizeof y, s[GENESIS_EVAL_PAIR_TRENDS], 0);
    sb(b, "<h2>Column pair trends</h2><p class=\"help\">Each cell compares how two columns move "
          "together in the real and in the synthetic table: correlation similarity for two "
          "continuous columns, contingency similarity otherwise. 1 = the same relation. "
          "The map shows <b>robust binning</b>: continuous values in 10 equal bins over the "
          "real column's 0.5%%&ndash;99.5%% quantile range, the tails in the end bins, so one "
          "outlier cannot squeeze a column into a single bin (mean over pairs %s). The "
          "SDMetrics binning (10 bins over each table's own min..max) gives the pair-trend "
          "score above (%s); the tooltip shows both. Cells with a black border are pairs "
          "strongly related in the real data (|Pearson| &gt; %.2g or Cram&eacute;r's V &gt; "
          "%.2g): those count in the strong-pair score.</p>\n",
       x, y, r->corr_threshold, r->assoc_threshold);
    sb(b, "<div class=\"hm\"><div class=\"panel\">");
    gen_ev_heatmap(b, r);
    sb(b, "</div>\n");
    gen_ev_strong_pairs(b, r);
    sb(b, "</div>\n");

    /* columns */
    sb(b, "<h2>Columns: real vs synthetic</h2><p class=\"help legend\">"
          "<span class=\"sw\" style=\"background:#7fb3e0\"></span>real"
          "<span class=\"sw\" style=\"background:#e8590c\"></span>synthetic &nbsp; "
          "Continuous columns: share of values per bin over the real range (synthetic values "
          "outside it are counted by the range score). Categorical columns: share of rows per "
          "category, most frequent first; the number is the real share. KS / TV: shape "
          "score.</p>\n");
    gen_ev_columns(b, r);

    /* details */
    sb(b, "<h2>Details</h2><div class=\"grid\">\n");
    if (r->parts & GENESIS_EVAL_PART_PRIVACY) {
        sb(b, "<div class=\"panel\"><h4>Privacy (leak checks, not anonymity)</h4><table>\n");
        sb(b, "<tr><td>exact copies of real rows</td><td class=\"n\">%lld of %lld</td></tr>\n",
           (long long)r->exact_copies, (long long)r->syn_rows);
        sb(b, "<tr><td>new rows (NewRowSynthesis)</td><td class=\"n\">%lld of %lld</td></tr>\n",
           (long long)r->new_rows, (long long)r->nrs_rows);
        gen_ev_fmt(x, sizeof x, r->dcr_median_syn, 0);
        sb(b, "<tr><td>median DCR synthetic &rarr; real</td><td class=\"n\">%s</td></tr>\n", x);
        gen_ev_fmt(x, sizeof x, r->dcr_median_random, 0);
        sb(b, "<tr><td>median DCR random &rarr; real</td><td class=\"n\">%s</td></tr>\n", x);
        if (r->hold_rows) {
            gen_ev_fmt(x, sizeof x, r->dcr_closer_to_training, 1);
            sb(b, "<tr><td>closer to training than holdout</td><td class=\"n\">%s</td></tr>\n", x);
            sb(b, "<tr><td>reference rows (training / holdout)</td><td class=\"n\">%lld / %lld%s"
               "</td></tr>\n", (long long)r->dcr_train_ref, (long long)r->dcr_hold_ref,
               r->dcr_equal_size ? " (equal-size seeded sample)" : " (whole tables)");
            if (r->dcr_warning)
                sb(b, "<tr><td colspan=\"2\">warning: %s</td></tr>\n", r->dcr_warning);
        }
        sb(b, "<tr><td>rows used for DCR</td><td class=\"n\">%lld%s</td></tr>\n",
           (long long)r->dcr_rows, r->dcr_exact ? "" : " (seeded subsample)");
        gen_ev_fmt(x, sizeof x,
                   r->real_rows ? (double)r->real_dup_rows / (double)r->real_rows : NAN, 1);
        sb(b, "<tr><td>real rows that repeat another real row</td><td class=\"n\">%lld of "
              "%lld (%s)</td></tr>\n", (long long)r->real_dup_rows, (long long)r->real_rows, x);
        if (r->has_baseline) {
            sb(b, "<tr><th colspan=\"2\">baseline: the holdout scored as if synthetic</th></tr>"
                  "\n<tr><td>exact copies of training rows</td><td class=\"n\">%lld of %lld"
                  "</td></tr>\n<tr><td>new rows (NewRowSynthesis)</td><td class=\"n\">%lld of "
                  "%lld</td></tr>\n", (long long)r->base_exact_copies, (long long)r->hold_rows,
               (long long)r->base_new_rows, (long long)r->hold_rows);
            gen_ev_fmt(x, sizeof x, r->base_dcr_median, 0);
            gen_ev_fmt(y, sizeof y, r->base_dcr_median_random, 0);
            sb(b, "<tr><td>median DCR holdout &rarr; real (random &rarr; real)</td>"
                  "<td class=\"n\">%s (%s)</td></tr>\n", x, y);
            gen_ev_fmt(x, sizeof x, r->base_dcr_baseline, 0);
            sb(b, "<tr><td>DCR vs random of the holdout</td><td class=\"n\">%s</td></tr>\n", x);
        }
        sb(b, "</table></div>\n");
    }
    if (r->parts & GENESIS_EVAL_PART_DETECTION) {
        sb(b, "<div class=\"panel\"><h4>Detection (LogisticDetection)</h4><table>\n");
        for (int k = 0; k < 3; k++) {
            gen_ev_fmt(x, sizeof x, r->detect_auc[k], 0);
            sb(b, "<tr><td>fold %d ROC AUC</td><td class=\"n\">%s</td></tr>\n", k + 1, x);
        }
        sb(b, "<tr><td>rows (real / synthetic)</td><td class=\"n\">%lld / %lld</td></tr>"
              "</table></div>\n", (long long)r->detect_real_rows, (long long)r->detect_syn_rows);
    }
    if ((r->parts & GENESIS_EVAL_PART_DETECTION) && r->xgb_available) {
        sb(b, "<div class=\"panel\"><h4>Detection (XGBoost)</h4><table>\n");
        for (int k = 0; k < 3; k++) {
            gen_ev_fmt(x, sizeof x, r->xgb_auc[k], 0);
            sb(b, "<tr><td>fold %d ROC AUC</td><td class=\"n\">%s</td></tr>\n", k + 1, x);
        }
        sb(b, "<tr><td>rows (real / synthetic)</td><td class=\"n\">%lld / %lld</td></tr>"
              "</table><p class=\"help\">binary:logistic, hist, 100 rounds, depth 6, eta 0.3, "
              "one thread per fold.</p></div>\n",
           (long long)r->xgb_real_rows, (long long)r->xgb_syn_rows);
    }
    if (r->ntstr) {
        sb(b, "<div class=\"panel\"><h4>Usefulness: target <code>");
        sb_esc(b, r->target, 60);
        sb(b, "</code></h4><table><tr><th>model</th><th>trained on synthetic</th><th>trained on "
              "real</th></tr>\n");
        for (int k = 0; k < r->ntstr; k++) {
            gen_ev_fmt(x, sizeof x, r->tstr[k].synthetic, 0);
            gen_ev_fmt(y, sizeof y, r->tstr[k].real, 0);
            sb(b, "<tr><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
               r->tstr[k].model, x, y);
        }
        sb(b, "</table><p class=\"help\">%s on %lld holdout rows",
           r->positive ? "F1 of the positive class" : "Macro F1", (long long)r->tstr_test_rows);
        if (r->positive) {
            sb(b, "; positive class = the real table's minority class, <code>");
            sb_esc(b, r->positive, 60);
            sb(b, "</code>");
        }
        char why[400];
        if (gen_ev_tstr_reason(r, why, sizeof why)[0]) {
            sb(b, ". Low for a reason: ");
            sb_esc(b, why, 0);
        }
        sb(b, ".</p></div>\n");
    }
    sb(b, "</div>\n");
    if (r->note) {
        sb(b, "<p class=\"help\">");
        sb_esc(b, r->note, 0);
        sb(b, "</p>\n");
    }
    sb(b, "<footer>Generated by genesis %s (seed %llu). Definitions follow SDMetrics "
          "(QualityReport, DiagnosticReport, NewRowSynthesis, DCRBaselineProtection, "
          "DCROverfittingProtection, LogisticDetection, ML efficacy), synthcity (XGBoost "
          "detection, alpha-precision, beta-recall) and TabSyn (DCR share); see "
          "docs/evaluate.md. "
          "Privacy scores are leak checks: they find copies and near copies, they do not prove "
          "anonymity.</footer>\n</main></body></html>\n",
       GENESIS_VERSION_STRING, (unsigned long long)r->seed);
}

genesis_status gen_ev_write_html(const genesis_eval_result *r, const char *path) {
    genesis_ctx *ctx = r->ctx;
    gen_sb b = {NULL, 0, 0, 0};
    gen_ev_page(&b, r);
    if (b.oom) {
        free(b.p);
        return gen_set_error(ctx, GENESIS_ERR_NOMEM, "out of memory building the report");
    }
    /* the CSV writer's file handling: temporary name, fsync, rename, "-" = stdout */
    gen_csv_writer *w = NULL;
    genesis_status st = gen_csv_writer_open(ctx, path, ',', &w);
    if (st == GENESIS_OK) {
        st = gen_csv_writer_raw(w, b.p, b.n);
        genesis_status cs = gen_csv_writer_close(w, st == GENESIS_OK);
        if (st == GENESIS_OK) st = cs;
    }
    free(b.p);
    return st;
}
