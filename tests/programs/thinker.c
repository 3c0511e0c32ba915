/* thinker: a program on a timer, as contest programs are. It runs another program (the
 * command after "--", e.g. the knob's C build) and, before passing on each of its answers,
 * thinks (spins the CPU) for min(turn_ms, 40) ms, turn_ms read from its own command line
 * (--turn-ms {turn_ms}). --log PATH appends the turn_ms it was given, one line per game, so
 * a test can check what the lab told it. --sleep waits the same time without the CPU (a bot
 * that spends its turn whatever else the machine runs: a sleeper wakes on time, a spinner on a
 * busy core does not). The same as thinker.py, without an interpreter's start-up in every game.
 *
 *     thinker --turn-ms {turn_ms} [--log PATH] [--sleep] -- ./knob --skill {skill} --seed {game_seed}
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THINK_CAP_MS 40 /* a contest bot stops well inside CodinGame's 50 ms */

static void fail(const char *message, const char *what) {
    fprintf(stderr, "thinker: %s%s\n", message, what ? what : "");
    exit(2);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static void write_all(int fd, const char *data, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* the other side is gone: the game is over */
        }
        data += w;
        n -= (size_t)w;
    }
}

int main(int argc, char **argv) {
    int turn_ms = 0, split = 0, sleeps = 0;
    const char *log = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) { split = i; break; }
        if (!strcmp(argv[i], "--sleep")) { sleeps = 1; continue; }
        if (i + 1 >= argc) fail("a value is missing after ", argv[i]);
        if (!strcmp(argv[i], "--turn-ms")) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1) fail("--turn-ms: a whole number of milliseconds is needed, got ", argv[i + 1]);
            turn_ms = (int)v;
        } else if (!strcmp(argv[i], "--log")) {
            log = argv[i + 1];
        } else {
            fail("unknown argument ", argv[i]);
        }
        i++;
    }
    if (!turn_ms) fail("--turn-ms is needed", NULL);
    if (!split || split + 1 >= argc) fail("give the program to run after --", NULL);
    if (log) {
        FILE *f = fopen(log, "a");
        if (!f) fail("cannot open the log ", log);
        fprintf(f, "%d\n", turn_ms);
        fclose(f);
    }
    double think = turn_ms < THINK_CAP_MS ? turn_ms : THINK_CAP_MS;

    int to_child[2], from_child[2];
    if (pipe(to_child) || pipe(from_child)) fail("cannot make pipes", NULL);
    pid_t child = fork();
    if (child < 0) fail("cannot fork", NULL);
    if (child == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        close(to_child[0]); close(to_child[1]); close(from_child[0]); close(from_child[1]);
        execvp(argv[split + 1], argv + split + 1);
        fprintf(stderr, "thinker: cannot start %s: %s\n", argv[split + 1], strerror(errno));
        _exit(2);
    }
    close(to_child[0]);
    close(from_child[1]);

    char buf[65536], line[65536];
    size_t have = 0;
    int input_open = 1;
    for (;;) {
        struct pollfd fds[2] = {{from_child[0], POLLIN, 0}, {0, POLLIN, 0}};
        int n = poll(fds, input_open ? 2 : 1, -1);
        if (n < 0) { if (errno == EINTR) continue; break; }
        if (input_open && (fds[1].revents & (POLLIN | POLLHUP))) { /* the referee's lines, as they come */
            ssize_t r = read(0, buf, sizeof buf);
            if (r <= 0) { close(to_child[1]); input_open = 0; }
            else write_all(to_child[1], buf, (size_t)r);
        }
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            ssize_t r = read(from_child[0], buf, sizeof buf);
            if (r <= 0) break; /* the program ended */
            for (ssize_t i = 0; i < r; i++) {
                if (have < sizeof line) line[have++] = buf[i];
                if (buf[i] == '\n') { /* an answer: think, then pass it on */
                    double until = now_ms() + think;
                    if (sleeps) {
                        struct timespec t = {(time_t)(think / 1000), (long)((think - 1000 * (long)(think / 1000)) * 1e6)};
                        while (nanosleep(&t, &t) && errno == EINTR) {}
                    }
                    while (now_ms() < until) {}
                    write_all(1, line, have);
                    have = 0;
                }
            }
        }
    }
    if (have) write_all(1, line, have);
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
