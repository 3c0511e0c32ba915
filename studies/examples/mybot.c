/* mybot.c - the example bot of studies/examples/mybot.py ported to C99 (same play, same
 * constants, same command-line arguments, its own seeded random numbers). A complete
 * CodinGame program: map and turns on stdin, one answer per line on stdout, debug on stderr.
 *
 * Build and run by hand against one of the lab's bots (from the repository's root):
 *
 *     cc -O2 -Wall -o mybot studies/examples/mybot.c -lm
 *     ocean referee --seed 3 --p0 "./mybot --seed 3" --p1 "ocean bot --name hunter"
 *
 * The three tunable constants (--NAME VALUE; defaults deliberately mediocre):
 *   --fire_probability P  float in [0, 1], default 0.9: fire a torpedo (or trigger a mine) only
 *                         when the chance that its blast touches the opponent is at least P.
 *   --approach A          float in [-2, 2], default 0.0: cost of each cell of distance to the
 *                         opponent's likely cells when choosing a move (positive: close in,
 *                         negative: keep away); free space reachable weighs 1 per cell.
 *   --silence_below N     integer in [0, 100], default 0: SILENCE (when charged) as soon as the
 *                         opponent can place us on at most N cells; 0 never silences.
 * Also --seed S (default 0) seeds the bot's random choices; --help prints this text.
 * See mybot.py for what the bot does each turn.
 *
 * Thinking on a timer, as a real contest bot does (the lab tells it its budget with
 * --turn-ms {turn_ms}):
 *   --turn-ms T    the milliseconds it has per turn (default 50, CodinGame's).
 *   --think F      share of T it spends looking ahead (default 0: no lookahead): random
 *                  self-avoiding walks from each move it may make, as many as fit in F x T ms
 *                  from the moment it has read the turn; a move whose walks last longer is
 *                  preferred. Its games then depend on the machine's speed and load: they
 *                  do not reproduce.
 *   --rollouts N   the same lookahead with a fixed budget instead of the timer: N walks per
 *                  move (default 0). Deterministic given the seeds: the mode to tune in.
 * With neither, it plays as mybot.py does (with its own random numbers) and reproduces.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 15
#define NC 225
#define WORDS 4
#define CAP 800
#define MAXST 40000
#define SPACE_CAP 40

static const char *HELP =
    "mybot - example Ocean of Code bot (C99 port of mybot.py)\n"
    "  --fire_probability P  float in [0, 1], default 0.9: fire a torpedo or trigger a mine only\n"
    "                        when the chance its blast touches the opponent is at least P\n"
    "  --approach A          float in [-2, 2], default 0.0: cost per cell of distance to the\n"
    "                        opponent's likely cells when moving (positive closes in)\n"
    "  --silence_below N     integer in [0, 100], default 0: SILENCE when charged as soon as the\n"
    "                        opponent can place us on at most N cells; 0 never silences\n"
    "  --seed S              integer, default 0: seed of the random choices\n"
    "  --turn-ms T           integer, default 50: its time per turn in ms, as the lab tells it\n"
    "  --think F             float in [0, 0.95], default 0: look ahead on a timer for F x T ms\n"
    "  --rollouts N          integer, default 0: look ahead N walks per move instead (deterministic)\n";

typedef struct { uint64_t w[WORDS]; } Mask;
typedef struct { int cell; Mask m; } State;

static double fire_probability = 0.9, approach = 0.0;
static int silence_below = 0;
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static int turn_ms = 50, rollouts = 0;
static double think = 0.0;
static double turn_start_ms;  /* when this turn's input was read */
static uint64_t walk_state = 0x2545F4914F6CDD1DULL;  /* the lookahead's own random numbers */
#define WALK_DEPTH 20
#define WALK_WEIGHT 0.5  /* the worth of one more step a walk lasts, next to a free cell */

static const char DNAME[4] = {'N', 'E', 'S', 'W'};
static const int DX[4] = {0, 1, 0, -1}, DY[4] = {-1, 0, 1, 0};

static int water[NC], step_[4][NC], sector_[NC];
static int blast_n[NC], blast_c[NC][9];
static Mask reach_m[NC], blast_m[NC];
static int reach_n[NC], reach_c[NC][NC];

/* ---- random numbers: splitmix64 ---- */
static uint64_t rnd64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double rnd01(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; }
static int rnd_below(int n) { return (int)(rnd01() * n); }
static uint64_t walk64(void) {  /* splitmix64 on its own state: the lookahead never shifts the play's draws */
    uint64_t z = (walk_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double now_ms(void);

/* ---- bit masks of cells ---- */
static int has(const Mask *m, int c) { return (int)((m->w[c >> 6] >> (c & 63)) & 1U); }
static void set_bit(Mask *m, int c) { m->w[c >> 6] |= (uint64_t)1 << (c & 63); }
static Mask single(int c) { Mask m; memset(&m, 0, sizeof m); set_bit(&m, c); return m; }

/* ---- trackers: sets of (cell, visited) states, a sound superset of where a sub can be ---- */
typedef struct { State *s; int n; } Tracker;
static State scratch[MAXST];

static int cmp_state(const void *a, const void *b) {
    const State *x = a, *y = b;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    return memcmp(&x->m, &y->m, sizeof(Mask));
}

static void tracker_reset(Tracker *t) {
    t->n = 0;
    for (int c = 0; c < NC; c++)
        if (water[c]) { t->s[t->n].cell = c; t->s[t->n].m = single(c); t->n++; }
}

static void merge(Tracker *t) {
    /* one state per cell: the visited cells every state on that cell shares */
    static Mask acc[NC];
    static int seen[NC];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < t->n; i++) {
        int c = t->s[i].cell;
        if (!seen[c]) { seen[c] = 1; acc[c] = t->s[i].m; }
        else for (int k = 0; k < WORDS; k++) acc[c].w[k] &= t->s[i].m.w[k];
    }
    t->n = 0;
    for (int c = 0; c < NC; c++)
        if (seen[c]) { t->s[t->n].cell = c; t->s[t->n].m = acc[c]; t->n++; }
}

/* Take the n states in scratch as the new set: dedupe, never empty, merge past CAP. */
static void keep(Tracker *t, int n) {
    if (n == 0) { tracker_reset(t); return; }
    qsort(scratch, (size_t)n, sizeof(State), cmp_state);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || cmp_state(&scratch[u - 1], &scratch[i]) != 0) scratch[u++] = scratch[i];
    memcpy(t->s, scratch, (size_t)u * sizeof(State));
    t->n = u;
    if (t->n > CAP) merge(t);
}

static void add_state(int *n, int cell, const Mask *m) {
    if (*n < MAXST) { scratch[*n].cell = cell; scratch[*n].m = *m; (*n)++; }
}

static int dir_index(char d) {
    for (int k = 0; k < 4; k++) if (DNAME[k] == d) return k;
    return -1;
}

/* Apply one order of a summary line (MOVE N, SURFACE 3, TORPEDO 4 5, SILENCE, ...). */
static void tracker_order(Tracker *t, const char *piece) {
    char word[16] = {0}, a[16] = {0}, b[16] = {0};
    int k = sscanf(piece, "%15s %15s %15s", word, a, b);
    int n = 0;
    if (k < 1) return;
    if (!strcmp(word, "MOVE") && k >= 2 && dir_index(a[0]) >= 0) {
        int d = dir_index(a[0]);
        for (int i = 0; i < t->n; i++) {
            int to = step_[d][t->s[i].cell];
            if (to >= 0 && !has(&t->s[i].m, to)) {
                Mask m = t->s[i].m;
                set_bit(&m, to);
                add_state(&n, to, &m);
            }
        }
        keep(t, n);
    } else if (!strcmp(word, "SURFACE") && k >= 2) {
        int s = atoi(a);
        for (int i = 0; i < t->n; i++)
            if (sector_[t->s[i].cell] == s) { Mask m = single(t->s[i].cell); add_state(&n, t->s[i].cell, &m); }
        keep(t, n);
    } else if (!strcmp(word, "TORPEDO") && k >= 3) {
        int x = atoi(a), y = atoi(b), c = y * W + x;
        if (x < 0 || x >= W || y < 0 || y >= W || !water[c]) return;
        for (int i = 0; i < t->n; i++)
            if (has(&reach_m[c], t->s[i].cell)) add_state(&n, t->s[i].cell, &t->s[i].m);
        keep(t, n);
    } else if (!strcmp(word, "SILENCE")) {
        if (t->n > 250) merge(t);
        for (int i = 0; i < t->n; i++) {
            add_state(&n, t->s[i].cell, &t->s[i].m);
            for (int d = 0; d < 4; d++) {
                int c = t->s[i].cell;
                Mask m = t->s[i].m;
                for (int s = 0; s < 4; s++) {
                    c = step_[d][c];
                    if (c < 0 || has(&m, c)) break;
                    set_bit(&m, c);
                    add_state(&n, c, &m);
                }
            }
        }
        keep(t, n);
    }
}

/* A blast at target took `damage` lives from this submarine. */
static void tracker_blast(Tracker *t, int target, int damage) {
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        int c = t->s[i].cell, near = has(&blast_m[target], c);
        int ok = damage >= 2 ? c == target : damage == 1 ? (near && c != target) : !near;
        if (ok) add_state(&n, c, &t->s[i].m);
    }
    keep(t, n);
}

static void tracker_sonar(Tracker *t, int sector, int yes) {
    int n = 0;
    for (int i = 0; i < t->n; i++)
        if ((sector_[t->s[i].cell] == sector) == yes) add_state(&n, t->s[i].cell, &t->s[i].m);
    keep(t, n);
}

static int tracker_cells(const Tracker *t, int *flags) {
    int count = 0;
    memset(flags, 0, NC * sizeof(int));
    for (int i = 0; i < t->n; i++)
        if (!flags[t->s[i].cell]) { flags[t->s[i].cell] = 1; count++; }
    return count;
}

/* ---- board ---- */
static void build_board(char rows[W][W + 2]) {
    for (int c = 0; c < NC; c++) {
        water[c] = rows[c / W][c % W] == '.';
        sector_[c] = (c % W) / 5 + (c / W) / 5 * 3 + 1;
    }
    for (int d = 0; d < 4; d++)
        for (int c = 0; c < NC; c++) {
            int x = c % W + DX[d], y = c / W + DY[d];
            step_[d][c] = (water[c] && x >= 0 && x < W && y >= 0 && y < W && water[y * W + x]) ? y * W + x : -1;
        }
    for (int c = 0; c < NC; c++) {
        int x = c % W, y = c / W;
        memset(&blast_m[c], 0, sizeof(Mask));
        blast_n[c] = 0;
        for (int yy = y - 1; yy <= y + 1; yy++)
            for (int xx = x - 1; xx <= x + 1; xx++)
                if (xx >= 0 && xx < W && yy >= 0 && yy < W) {
                    blast_c[c][blast_n[c]++] = yy * W + xx;
                    set_bit(&blast_m[c], yy * W + xx);
                }
        /* torpedo range: water cells within 4 steps through water */
        memset(&reach_m[c], 0, sizeof(Mask));
        reach_n[c] = 0;
        if (!water[c]) continue;
        int dist[NC], queue[NC], head = 0, tail = 0;
        for (int i = 0; i < NC; i++) dist[i] = -1;
        dist[c] = 0;
        queue[tail++] = c;
        while (head < tail) {
            int u = queue[head++];
            reach_c[c][reach_n[c]++] = u;
            set_bit(&reach_m[c], u);
            if (dist[u] == 4) continue;
            for (int d = 0; d < 4; d++) {
                int v = step_[d][u];
                if (v >= 0 && dist[v] < 0) { dist[v] = dist[u] + 1; queue[tail++] = v; }
            }
        }
    }
}

/* Free cells reachable from start (start included), cells in blocked excluded. */
static int flood(int start, const Mask *blocked) {
    Mask seen = *blocked;
    int stack[NC], sp = 0, count = 0;
    set_bit(&seen, start);
    stack[sp++] = start;
    while (sp) {
        int c = stack[--sp];
        count++;
        for (int d = 0; d < 4; d++) {
            int n = step_[d][c];
            if (n >= 0 && !has(&seen, n)) { set_bit(&seen, n); stack[sp++] = n; }
        }
    }
    return count;
}

/* ---- the bot ---- */
static State opp_buf[MAXST], me_buf[MAXST], probe_buf[MAXST];
static Tracker opp = {opp_buf, 0}, me = {me_buf, 0};
static Mask visited;
static int opp_life = 6, life, life_after = 6, pos;
static int cd_torpedo, cd_sonar, cd_silence, cd_mine;
static int my_fire[4], n_fire = 0, my_sonar = 0;
static int mines[NC];
static int cand[NC], n_cand;

static int self_damage(int origin, int target) {
    return target == origin ? 2 : (has(&blast_m[target], origin) ? 1 : 0);
}

/* Best torpedo from origin: returns the target or -1; *expected_out gets its expected damage. */
static int best_shot(int origin, double *expected_out) {
    int best = -1;
    double best_key[3] = {0, 0, 0};
    for (int i = 0; i < reach_n[origin]; i++) {
        int t = reach_c[origin][i], hit = 0, direct = cand[t];
        for (int j = 0; j < blast_n[t]; j++) hit += cand[blast_c[t][j]];
        if (!hit) continue;
        double touch = (double)hit / n_cand, expected = (double)(hit + direct) / n_cand;
        int sd = self_damage(origin, t);
        if (sd) {
            int sure_kill = (n_cand == 1 && direct && opp_life <= 2) || (hit == n_cand && opp_life <= 1);
            if (!(sure_kill && life > sd)) continue;
        }
        if (touch + 1e-9 < fire_probability) continue;
        double key[3] = {expected, touch, (double)-sd};
        if (best < 0 || key[0] > best_key[0] || (key[0] == best_key[0] && (key[1] > best_key[1] ||
                (key[1] == best_key[1] && key[2] > best_key[2])))) {
            best = t;
            memcpy(best_key, key, sizeof key);
        }
    }
    if (expected_out) *expected_out = best_key[0];
    return best;
}

static int best_trigger(int at) {
    int best = -1;
    double best_e = 0;
    for (int m = 0; m < NC; m++) {
        if (!mines[m] || has(&blast_m[m], at)) continue;
        int hit = 0;
        for (int j = 0; j < blast_n[m]; j++) hit += cand[blast_c[m][j]];
        if (hit && (double)hit / n_cand + 1e-9 >= fire_probability) {
            double e = (double)(hit + cand[m]) / n_cand;
            if (best < 0 || e > best_e) { best = m; best_e = e; }
        }
    }
    return best;
}

static const char *charge(void) {
    if (cd_torpedo > 0) { cd_torpedo--; return "TORPEDO"; }
    if (cd_silence > 0) { cd_silence--; return "SILENCE"; }
    if (cd_mine > 0) { cd_mine--; return "MINE"; }
    if (cd_sonar > 0) { cd_sonar--; return "SONAR"; }
    return "TORPEDO";
}

static void apply_me(Tracker *t, char pieces[][32], int np, int surfaced_sector) {
    for (int i = 0; i < np; i++) {
        if (!strcmp(pieces[i], "SURFACE")) {
            char s[32];
            snprintf(s, sizeof s, "SURFACE %d", surfaced_sector);
            tracker_order(t, s);
        } else {
            tracker_order(t, pieces[i]);
        }
    }
}

/* Steps a random self-avoiding walk from `start` lasts (at most WALK_DEPTH), the cells in
 * `blocked` and `start` taken. */
static int walk(int start, const Mask *blocked) {
    Mask seen = *blocked;
    int c = start, steps = 0;
    set_bit(&seen, c);
    while (steps < WALK_DEPTH) {
        int next[4], n = 0;
        for (int d = 0; d < 4; d++)
            if (step_[d][c] >= 0 && !has(&seen, step_[d][c])) next[n++] = step_[d][c];
        if (!n) break;
        c = next[walk64() % (uint64_t)n];
        set_bit(&seen, c);
        steps++;
    }
    return steps;
}

/* Mean walk length from each move's cell: `rollouts` walks each, or rounds of one walk each
 * until think x turn_ms has passed since the turn's input was read (at least one round). */
static void look_ahead(const int *cells, int n, double *mean) {
    long total[4] = {0, 0, 0, 0}, count = 0;
    double until = turn_start_ms + think * turn_ms;
    for (;;) {
        for (int i = 0; i < n; i++) total[i] += walk(cells[i], &visited);
        count++;
        if (think > 0 ? now_ms() >= until : count >= rollouts) break;
    }
    for (int i = 0; i < n; i++) mean[i] = (double)total[i] / (double)count;
}

static void decide(char *out, size_t out_size) {
    char pieces[8][32];
    int np = 0, hurt = 0, surfaced = 0, surfaced_sector = 0, new_mine = -1;
    int torpedo_ready = cd_torpedo == 0;
    n_cand = tracker_cells(&opp, cand);
    n_fire = 0;

    int trig = best_trigger(pos);
    if (trig >= 0) {
        snprintf(pieces[np++], 32, "TRIGGER %d %d", trig % W, trig / W);
        mines[trig] = 0;
        my_fire[n_fire++] = trig;
    }
    int moves[4], nm = 0;
    for (int d = 0; d < 4; d++)
        if (step_[d][pos] >= 0 && !has(&visited, step_[d][pos])) moves[nm++] = d;
    if (!nm) {
        snprintf(pieces[np++], 32, "SURFACE");
        surfaced = 1;
        surfaced_sector = sector_[pos];
        visited = single(pos);
        for (int d = 0; d < 4; d++) if (step_[d][pos] >= 0) moves[nm++] = d;
    }
    int fired = -1;
    if (torpedo_ready) fired = best_shot(pos, NULL);
    double cx = 0, cy = 0;
    for (int c = 0; c < NC; c++) if (cand[c]) { cx += c % W; cy += c / W; }
    cx /= n_cand;
    cy /= n_cand;
    int known = n_cand < 60, best_d = -1;
    double best_score = 0, ahead[4] = {0, 0, 0, 0};
    if (think > 0 || rollouts > 0) {
        int cells[4];
        for (int i = 0; i < nm; i++) cells[i] = step_[moves[i]][pos];
        look_ahead(cells, nm, ahead);
    }
    for (int i = 0; i < nm; i++) {
        int d = moves[i], n = step_[d][pos];
        int space = flood(n, &visited);
        if (space > SPACE_CAP) space = SPACE_CAP;
        double dx = n % W - cx, dy = n / W - cy;
        double dist = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
        double score = space - (known ? approach * dist : 0.0);
        if (torpedo_ready && fired < 0) {
            double e;
            if (best_shot(n, &e) >= 0) score += 10 * e;
        }
        score += WALK_WEIGHT * ahead[i];
        score += rnd01() * 0.01;
        if (best_d < 0 || score > best_score) { best_d = d; best_score = score; }
    }
    if (fired >= 0) {
        snprintf(pieces[np++], 32, "TORPEDO %d %d", fired % W, fired / W);
        hurt += self_damage(pos, fired);
        my_fire[n_fire++] = fired;
        cd_torpedo = 3;
    }
    if (best_d >= 0) {
        int n = step_[best_d][pos];
        const char *power = charge();
        snprintf(pieces[np++], 32, "MOVE %c %s", DNAME[best_d], power);
        set_bit(&visited, n);
        pos = n;
        if (torpedo_ready && fired < 0) {
            int shot = best_shot(pos, NULL);
            if (shot >= 0) {
                snprintf(pieces[np++], 32, "TORPEDO %d %d", shot % W, shot / W);
                hurt += self_damage(pos, shot);
                my_fire[n_fire++] = shot;
            }
        }
    }
    /* SILENCE when the opponent knows too well where we are (judged after this turn's orders) */
    if (cd_silence == 0 && silence_below > 0) {
        Tracker probe = {probe_buf, me.n};
        int flags[NC];
        memcpy(probe_buf, me.s, (size_t)me.n * sizeof(State));
        apply_me(&probe, pieces, np, surfaced_sector);
        if (tracker_cells(&probe, flags) <= silence_below) {
            int bd = -1, bk = 0;
            double bs = 0;
            for (int d = 0; d < 4; d++) {
                int c = pos;
                Mask blocked = visited;
                for (int k = 1; k <= 4; k++) {
                    c = step_[d][c];
                    if (c < 0 || has(&visited, c)) break;
                    set_bit(&blocked, c);
                    int space = flood(c, &blocked);
                    if (space > SPACE_CAP) space = SPACE_CAP;
                    double s = space + k + rnd01() * 0.01;
                    if (bd < 0 || s > bs) { bd = d; bk = k; bs = s; }
                }
            }
            if (bd >= 0) {
                for (int k = 0; k < bk; k++) { pos = step_[bd][pos]; set_bit(&visited, pos); }
                snprintf(pieces[np++], 32, "SILENCE %c %d", DNAME[bd], bk);
            }
        }
    }
    if (cd_mine == 0) {
        int spots[4], ns = 0;
        for (int d = 0; d < 4; d++) if (step_[d][pos] >= 0 && !mines[step_[d][pos]]) spots[ns++] = d;
        if (ns) {
            int d = spots[rnd_below(ns)];
            snprintf(pieces[np++], 32, "MINE %c", DNAME[d]);
            new_mine = step_[d][pos];
        }
    }
    my_sonar = 0;
    if (cd_sonar == 0 && n_cand > 1) {
        int counts[10] = {0}, best = 0;
        double gap = 1e9;
        for (int c = 0; c < NC; c++) if (cand[c]) counts[sector_[c]]++;
        for (int s = 1; s <= 9; s++) {
            double g = counts[s] - n_cand / 2.0;
            if (g < 0) g = -g;
            if (g < gap) { gap = g; best = s; }
        }
        if (counts[best] > 0 && counts[best] < n_cand) {
            snprintf(pieces[np++], 32, "SONAR %d", best);
            my_sonar = best;
        }
    }
    apply_me(&me, pieces, np, surfaced_sector);
    if (new_mine >= 0) mines[new_mine] = 1;
    life_after = life - hurt - surfaced;
    out[0] = 0;
    for (int i = 0; i < np; i++) {
        if (i) strncat(out, "|", out_size - strlen(out) - 1);
        strncat(out, pieces[i], out_size - strlen(out) - 1);
    }
}

/* Read a turn: our state, what our sonar and blasts learned, the opponent's orders. */
static void read_turn(const char *first, const char *sonar_line, char *opp_line) {
    int x, y, ol;
    sscanf(first, "%d %d %d %d %d %d %d %d", &x, &y, &life, &ol, &cd_torpedo, &cd_sonar, &cd_silence, &cd_mine);
    pos = y * W + x;
    char *pieces[16];
    int np = 0, surf = 0, torp = 0, trig = 0, tx = -1, ty = -1;
    opp_line[strcspn(opp_line, "\r\n")] = 0;
    if (strcmp(opp_line, "NA") != 0) {
        for (char *p = strtok(opp_line, "|"); p && np < 16; p = strtok(NULL, "|")) {
            while (*p == ' ') p++;
            pieces[np++] = p;
            if (!strncmp(p, "SURFACE", 7)) surf = 1;
            if (!strncmp(p, "TORPEDO", 7)) { torp++; sscanf(p + 7, "%d %d", &tx, &ty); }
            if (!strncmp(p, "TRIGGER", 7)) trig = 1;
        }
    }
    if (my_sonar && (sonar_line[0] == 'Y' || sonar_line[0] == 'N')) tracker_sonar(&opp, my_sonar, sonar_line[0] == 'Y');
    if (n_fire == 1 && !torp && !trig) {
        int lost = opp_life - ol - surf;
        if (lost >= 0 && lost <= 2) tracker_blast(&opp, my_fire[0], lost);
    }
    if (torp == 1 && !trig && tx >= 0 && tx < W && ty >= 0 && ty < W) {
        int lost = life_after - life;
        if (lost >= 0 && lost <= 2) tracker_blast(&me, ty * W + tx, lost);
    }
    n_fire = 0;
    my_sonar = 0;
    opp_life = ol;
    for (int i = 0; i < np; i++) tracker_order(&opp, pieces[i]);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    long long seed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { fputs(HELP, stdout); return 0; }
        if (i + 1 >= argc) { fprintf(stderr, "mybot: bad argument %s (see --help)\n", argv[i]); return 2; }
        char *end;
        double v = strtod(argv[i + 1], &end);
        if (*end) { fprintf(stderr, "mybot: bad value %s for %s\n", argv[i + 1], argv[i]); return 2; }
        if (!strcmp(argv[i], "--fire_probability")) fire_probability = v < 0 ? 0 : v > 1 ? 1 : v;
        else if (!strcmp(argv[i], "--approach")) approach = v < -2 ? -2 : v > 2 ? 2 : v;
        else if (!strcmp(argv[i], "--silence_below")) silence_below = v < 0 ? 0 : v > 100 ? 100 : (int)v;
        else if (!strcmp(argv[i], "--seed")) seed = (long long)v;
        else if (!strcmp(argv[i], "--turn-ms")) turn_ms = v < 1 ? 1 : (int)v;
        else if (!strcmp(argv[i], "--think")) think = v < 0 ? 0 : v > 0.95 ? 0.95 : v;
        else if (!strcmp(argv[i], "--rollouts")) rollouts = v < 0 ? 0 : v > 100000 ? 100000 : (int)v;
        else { fprintf(stderr, "mybot: bad argument %s (see --help)\n", argv[i]); return 2; }
        i++;
    }
    rng_state ^= (uint64_t)seed * 0xD1B54A32D192ED03ULL;
    walk_state ^= (uint64_t)seed * 0xD1B54A32D192ED03ULL;
    int width, height, my_id;
    char rows[W][W + 2], line[512], sonar_line[64], opp_line[512], answer[256];
    if (scanf("%d %d %d", &width, &height, &my_id) != 3) return 0;
    for (int y = 0; y < W; y++) if (scanf("%16s", rows[y]) != 1) return 0;
    if (!fgets(line, sizeof line, stdin)) return 0; /* rest of the last map line */
    build_board(rows);
    tracker_reset(&opp);
    tracker_reset(&me);

    /* start: a random cell of the largest body of water */
    int comp[NC], best_comp = -1, best_size = 0, label[NC];
    for (int c = 0; c < NC; c++) label[c] = -1;
    for (int c = 0; c < NC; c++) {
        if (!water[c] || label[c] >= 0) continue;
        int queue[NC], head = 0, tail = 0;
        label[c] = c;
        queue[tail++] = c;
        while (head < tail) {
            int u = queue[head++];
            for (int d = 0; d < 4; d++) {
                int v = step_[d][u];
                if (v >= 0 && label[v] < 0) { label[v] = c; queue[tail++] = v; }
            }
        }
        if (tail > best_size) { best_size = tail; best_comp = c; }
    }
    int nc = 0;
    for (int c = 0; c < NC; c++) if (label[c] == best_comp) comp[nc++] = c;
    int start = comp[rnd_below(nc)];
    visited = single(start);
    printf("%d %d\n", start % W, start / W);
    fflush(stdout);

    int turn = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (!fgets(sonar_line, sizeof sonar_line, stdin) || !fgets(opp_line, sizeof opp_line, stdin)) break;
        double t0 = now_ms();
        turn_start_ms = t0;
        read_turn(line, sonar_line, opp_line);
        decide(answer, sizeof answer);
        printf("%s\n", answer);
        fflush(stdout);
        turn++;
        fprintf(stderr, "turn %d: %s | opp cells %d | %.1f ms of %d\n", turn, answer, n_cand, now_ms() - t0, turn_ms);
    }
    return 0;
}
