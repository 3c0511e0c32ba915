/* knob: a test bot with one tunable parameter, skill in [0, 1] (default 0.5).
 *
 * The same bot as knob.py and Knob.java: given the same arguments the three print the
 * same lines. Parameter sources, each overriding the previous: the environment variable
 * KNOB_SKILL, a parameters file (--params-file PATH: "name = value" lines, or a flat JSON
 * object when the file starts with '{'), then --skill X. --seed S (signed 64-bit) seeds
 * its splitmix64 generator. Values outside [0, 1] are clamped; a value that is not a
 * number, an unreadable file or an unknown argument prints one line to stderr and exits 2.
 *
 * Build: cc -O2 -o knob knob.c -lm
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 64
#define MAX_CELLS (MAX_SIDE * MAX_SIDE)
#define LINE_MAX_LEN 4096

static const char DIR_NAMES[4] = {'N', 'S', 'E', 'W'};
static const int DIR_DX[4] = {0, 0, 1, -1};
static const int DIR_DY[4] = {-1, 1, 0, 0};

static uint64_t rng_state;

static uint64_t rng_next(void) {
    uint64_t z;
    rng_state += 0x9E3779B97F4A7C15ULL;
    z = rng_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double rng_double(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }

static int rng_below(int n) { return (int)(rng_next() % (uint64_t)n); }

static void fail(const char *fmt, const char *arg) {
    fputs("knob: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(2);
}

/* ------------------------------------------------------------------ numbers */

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

/* Copy text[0..len) without surrounding whitespace into out (size outn). */
static void trim_copy(const char *text, size_t len, char *out, size_t outn) {
    while (len > 0 && is_ws(*text)) {
        text++;
        len--;
    }
    while (len > 0 && is_ws(text[len - 1])) len--;
    if (len >= outn) len = outn - 1;
    memcpy(out, text, len);
    out[len] = '\0';
}

/* [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)? */
static int is_decimal(const char *s) {
    int digits = 0;
    if (*s == '+' || *s == '-') s++;
    while (isdigit((unsigned char)*s)) {
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (isdigit((unsigned char)*s)) {
            s++;
            digits++;
        }
    }
    if (digits == 0) return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!isdigit((unsigned char)*s)) return 0;
        while (isdigit((unsigned char)*s)) s++;
    }
    return *s == '\0';
}

static double number(const char *text, size_t len, const char *what) {
    char buf[256];
    double v;
    trim_copy(text, len, buf, sizeof buf);
    if (!is_decimal(buf)) fail("%s: not a number", what);
    v = strtod(buf, NULL);
    if (!isfinite(v)) fail("%s: not a finite number", what);
    return v;
}

static double clamp01(double v) { return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v); }

static double skill_value(const char *text, size_t len, const char *what) {
    return clamp01(number(text, len, what));
}

/* ---------------------------------------------------------- parameters file */

static const char *json_ws(const char *p) {
    while (is_ws(*p)) p++;
    return p;
}

/* p at '"': the position after the closing quote, or NULL. The raw (still escaped)
 * contents are [*start, *end). */
static const char *json_string(const char *p, const char **start, const char **end) {
    p++;
    *start = p;
    while (*p && *p != '"') {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (!*p) return NULL;
        }
        p++;
    }
    if (*p != '"') return NULL;
    *end = p;
    return p + 1;
}

/* -?(0|[1-9]digits)(.digits)?([eE][+-]?digits)?: the position after it, or NULL. */
static const char *json_number(const char *p) {
    if (*p == '-') p++;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (isdigit((unsigned char)*p)) p++;
    } else {
        return NULL;
    }
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return NULL;
        while (isdigit((unsigned char)*p)) p++;
    }
    return p;
}

/* Skip any JSON value; the position after it, or NULL. */
static const char *json_skip(const char *p, int depth) {
    const char *s, *e;
    if (depth > 100) return NULL;
    p = json_ws(p);
    if (*p == '"') return json_string(p, &s, &e);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = json_ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                if (*p != '"' || !(p = json_string(p, &s, &e))) return NULL;
                p = json_ws(p);
                if (*p != ':') return NULL;
                p++;
            }
            if (!(p = json_skip(p, depth + 1))) return NULL;
            p = json_ws(p);
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p = json_ws(p + 1);
        }
    }
    if (strncmp(p, "true", 4) == 0) return p + 4;
    if (strncmp(p, "false", 5) == 0) return p + 5;
    if (strncmp(p, "null", 4) == 0) return p + 4;
    return json_number(p);
}

/* The skill in a flat JSON object (*found = 0 when absent). */
static double json_skill(const char *text, const char *path, int *found) {
    const char *p = json_ws(text), *ks, *ke;
    double skill = 0.0;
    *found = 0;
    if (*p != '{') fail("bad JSON in %s", path);
    p = json_ws(p + 1);
    if (*p == '}') {
        p++;
    } else {
        for (;;) {
            int is_skill;
            if (*p != '"' || !(p = json_string(p, &ks, &ke))) fail("bad JSON in %s", path);
            is_skill = (ke - ks == 5 && strncmp(ks, "skill", 5) == 0);
            p = json_ws(p);
            if (*p != ':') fail("bad JSON in %s", path);
            p = json_ws(p + 1);
            if (is_skill) {
                const char *end;
                if (*p == '"') {
                    const char *vs, *ve;
                    if (!(end = json_string(p, &vs, &ve))) fail("bad JSON in %s", path);
                    skill = skill_value(vs, (size_t)(ve - vs), "skill in the parameters file");
                } else if ((end = json_number(p)) != NULL) {
                    skill = skill_value(p, (size_t)(end - p), "skill in the parameters file");
                } else if (!json_skip(p, 0)) {
                    fail("bad JSON in %s", path);
                } else {
                    fail("skill in %s: not a number", path);
                }
                *found = 1;
                p = end;
            } else if (!(p = json_skip(p, 0))) {
                fail("bad JSON in %s", path);
            }
            p = json_ws(p);
            if (*p == '}') {
                p++;
                break;
            }
            if (*p != ',') fail("bad JSON in %s", path);
            p = json_ws(p + 1);
        }
    }
    if (*json_ws(p) != '\0') fail("bad JSON in %s (text after the object)", path);
    return skill;
}

/* [start, *len) without one pair of matching surrounding quotes. */
static const char *unquote(const char *s, size_t *len) {
    if (*len >= 2 && s[0] == s[*len - 1] && (s[0] == '"' || s[0] == '\'')) {
        *len -= 2;
        return s + 1;
    }
    return s;
}

/* "name = value" lines: the last skill, *found = 0 when absent. */
static double toml_skill(char *text, int *found) {
    double skill = 0.0;
    char *line = text;
    *found = 0;
    while (line) {
        char *next = strchr(line, '\n'), *hash, *eq, key[256];
        const char *k, *v;
        size_t klen, vlen;
        if (next) *next++ = '\0';
        if ((hash = strchr(line, '#')) != NULL) *hash = '\0';
        eq = strchr(line, '=');
        while (is_ws(*line)) line++;
        if (*line && *line != '[' && eq) {
            trim_copy(line, (size_t)(eq - line), key, sizeof key);
            klen = strlen(key);
            k = unquote(key, &klen);
            if (klen == 5 && strncmp(k, "skill", 5) == 0) {
                char value[256];
                trim_copy(eq + 1, strlen(eq + 1), value, sizeof value);
                vlen = strlen(value);
                v = unquote(value, &vlen);
                skill = skill_value(v, vlen, "skill in the parameters file");
                *found = 1;
            }
        }
        line = next;
    }
    return skill;
}

static double read_params_file(const char *path, int *found) {
    FILE *f = fopen(path, "rb");
    char *text, *p;
    size_t size = 0, cap = 4096, n;
    double skill;
    if (!f) fail("cannot read parameters file %s", path);
    text = malloc(cap);
    if (!text) exit(1);
    while ((n = fread(text + size, 1, cap - size - 1, f)) > 0) {
        size += n;
        if (cap - size - 1 == 0) {
            cap *= 2;
            if (!(text = realloc(text, cap))) exit(1);
        }
    }
    if (ferror(f)) fail("cannot read parameters file %s", path);
    fclose(f);
    text[size] = '\0';
    p = text;
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    if (*json_ws(p) == '{') {
        skill = json_skill(p, path, found);
    } else {
        skill = toml_skill(p, found);
    }
    free(text);
    return skill;
}

/* ----------------------------------------------------------------- the game */

static int width, height;
static char water[MAX_CELLS];
static int nbr[MAX_CELLS][4];
static char visited[MAX_CELLS];
static int visited_count;
static int mark[MAX_CELLS], stamp;
static int stack[MAX_CELLS];

/* Cells reachable from start through water not blocked (by visited when use_visited),
 * marked with the current stamp; returns how many. */
static int region(int start, int use_visited) {
    int top = 0, count = 1, k;
    stamp++;
    mark[start] = stamp;
    stack[top++] = start;
    while (top > 0) {
        int c = stack[--top];
        for (k = 0; k < 4; k++) {
            int n = nbr[c][k];
            if (n >= 0 && mark[n] != stamp && !(use_visited && visited[n])) {
                mark[n] = stamp;
                stack[top++] = n;
                count++;
            }
        }
    }
    return count;
}

static void reset_visited(int pos) {
    memset(visited, 0, sizeof visited);
    visited[pos] = 1;
    visited_count = 1;
}

/* Read one line (without its newline) into buf; longer lines are cut. 0 at end of input. */
static int read_line(char *buf, size_t n) {
    size_t len;
    if (!fgets(buf, (int)n, stdin)) return 0;
    len = strlen(buf);
    if (len > 0 && buf[len - 1] == '\n') {
        buf[--len] = '\0';
    } else {
        int ch;
        while ((ch = getchar()) != EOF && ch != '\n') {
        }
    }
    if (len > 0 && buf[len - 1] == '\r') buf[--len] = '\0';
    return 1;
}

static void write_line(const char *line) {
    if (fputs(line, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout) == EOF) exit(0);
}

static const char *option_value(int argc, char **argv, int *i, const char *name) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0) return NULL;
    if (argv[*i][len] == '=') return argv[*i] + len + 1;
    if (argv[*i][len] != '\0') return NULL;
    if (*i + 1 >= argc) fail("%s needs a value", name);
    return argv[++*i];
}

int main(int argc, char **argv) {
    const char *skill_arg = NULL, *seed_arg = NULL, *params_arg = NULL, *env, *v;
    double skill = 0.5;
    int64_t seed = 0;
    char line[LINE_MAX_LEN];
    int i, my_id, c, start = 0, best_size = 0;

    signal(SIGPIPE, SIG_IGN); /* a closed output is noticed by write_line */

    for (i = 1; i < argc; i++) {
        if ((v = option_value(argc, argv, &i, "--skill")) != NULL) {
            skill_arg = v;
        } else if ((v = option_value(argc, argv, &i, "--seed")) != NULL) {
            seed_arg = v;
        } else if ((v = option_value(argc, argv, &i, "--params-file")) != NULL) {
            params_arg = v;
        } else {
            fail("unknown argument '%s'", argv[i]);
        }
    }
    env = getenv("KNOB_SKILL");
    if (env) {
        char buf[256];
        trim_copy(env, strlen(env), buf, sizeof buf);
        if (buf[0]) skill = skill_value(env, strlen(env), "KNOB_SKILL");
    }
    if (params_arg) {
        int found;
        double from_file = read_params_file(params_arg, &found);
        if (found) skill = from_file;
    }
    if (skill_arg) skill = skill_value(skill_arg, strlen(skill_arg), "--skill");
    if (seed_arg) {
        char buf[256], *end;
        long long s;
        const char *p;
        trim_copy(seed_arg, strlen(seed_arg), buf, sizeof buf);
        p = buf + (buf[0] == '+' || buf[0] == '-');
        if (!*p) fail("--seed: not a signed 64-bit integer: '%s'", seed_arg);
        for (; *p; p++)
            if (!isdigit((unsigned char)*p)) fail("--seed: not a signed 64-bit integer: '%s'", seed_arg);
        errno = 0;
        s = strtoll(buf, &end, 10);
        if (errno == ERANGE) fail("--seed: not a signed 64-bit integer: '%s'", seed_arg);
        seed = (int64_t)s;
    }
    rng_state = (uint64_t)seed;

    if (!read_line(line, sizeof line)) return 0;
    if (sscanf(line, "%d %d %d", &width, &height, &my_id) != 3 || width < 1 || height < 1 ||
        width > MAX_SIDE || height > MAX_SIDE) {
        fprintf(stderr, "knob: bad first line\n");
        return 1;
    }
    for (i = 0; i < height; i++) {
        int x;
        if (!read_line(line, sizeof line)) return 0;
        for (x = 0; x < width; x++) water[i * width + x] = (x < (int)strlen(line) && line[x] == '.');
    }
    for (c = 0; c < width * height; c++) {
        int k, x = c % width, y = c / width;
        for (k = 0; k < 4; k++) {
            int nx = x + DIR_DX[k], ny = y + DIR_DY[k];
            nbr[c][k] = (nx >= 0 && nx < width && ny >= 0 && ny < height && water[ny * width + nx])
                            ? ny * width + nx : -1;
        }
    }

    /* Start: a seeded random cell of the largest body of water (the first on ties). */
    {
        static char done[MAX_CELLS];
        static int body_mark[MAX_CELLS];
        int best_stamp = 0, pick, seen = 0;
        for (c = 0; c < width * height; c++) {
            if (water[c] && !done[c]) {
                int size = region(c, 0), d;
                for (d = 0; d < width * height; d++)
                    if (mark[d] == stamp) {
                        done[d] = 1;
                        body_mark[d] = stamp;
                    }
                if (size > best_size) {
                    best_size = size;
                    best_stamp = stamp;
                }
            }
        }
        if (best_size > 0) {
            pick = rng_below(best_size);
            for (c = 0; c < width * height; c++) {
                if (water[c] && body_mark[c] == best_stamp) {
                    if (seen == pick) {
                        start = c;
                        break;
                    }
                    seen++;
                }
            }
        }
    }
    snprintf(line, sizeof line, "%d %d", start % width, start / width);
    write_line(line);
    reset_visited(start);

    for (;;) {
        static int dist[MAX_CELLS], frontier[MAX_CELLS], targets[MAX_CELLS];
        char status[LINE_MAX_LEN], out[256];
        int x, y, my_life, opp_life, torpedo_cd, pos, k, best = -1, best_area = 0;
        if (!read_line(status, sizeof status) || !read_line(line, sizeof line) || !read_line(line, sizeof line))
            return 0;
        if (sscanf(status, "%d %d %d %d %d", &x, &y, &my_life, &opp_life, &torpedo_cd) != 5 || x < 0 ||
            x >= width || y < 0 || y >= height) {
            fprintf(stderr, "knob: bad turn line\n");
            return 1;
        }
        pos = y * width + x;
        if (!visited[pos]) reset_visited(pos);

        if (rng_double() < 1.0 - skill && visited_count > 1) {
            reset_visited(pos);
            write_line("SURFACE");
            continue;
        }
        out[0] = '\0';
        if (torpedo_cd == 0 && rng_double() < skill) {
            int head = 0, tail = 0, ntargets = 0;
            for (c = 0; c < width * height; c++) dist[c] = -1;
            dist[pos] = 0;
            frontier[tail++] = pos;
            while (head < tail) {
                int cur = frontier[head++];
                if (dist[cur] == 4) continue;
                for (k = 0; k < 4; k++) {
                    int n = nbr[cur][k];
                    if (n >= 0 && dist[n] < 0) {
                        dist[n] = dist[cur] + 1;
                        frontier[tail++] = n;
                    }
                }
            }
            for (c = 0; c < width * height; c++) {
                int dx = abs(c % width - x), dy = abs(c / width - y);
                if (dist[c] >= 0 && (dx > dy ? dx : dy) >= 2) targets[ntargets++] = c;
            }
            if (ntargets > 0) {
                int t = targets[rng_below(ntargets)];
                snprintf(out, sizeof out, "TORPEDO %d %d|", t % width, t / width);
            }
        }
        for (k = 0; k < 4; k++) {
            int n = nbr[pos][k];
            if (n >= 0 && !visited[n]) {
                int area = region(n, 1);
                if (area > best_area) {
                    best = k;
                    best_area = area;
                }
            }
        }
        if (best < 0) {
            reset_visited(pos);
            strcat(out, "SURFACE");
        } else {
            size_t len = strlen(out);
            visited[nbr[pos][best]] = 1;
            visited_count++;
            snprintf(out + len, sizeof out - len, "MOVE %c TORPEDO", DIR_NAMES[best]);
        }
        write_line(out);
    }
}
