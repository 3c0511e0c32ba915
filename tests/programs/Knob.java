/* knob: a test bot with one tunable parameter, skill in [0, 1] (default 0.5).
 *
 * The same bot as knob.py and knob.c: given the same arguments the three print the same
 * lines. Parameter sources, each overriding the previous: the environment variable
 * KNOB_SKILL, a parameters file (--params-file PATH: "name = value" lines, or a flat JSON
 * object when the file starts with '{'), then --skill X. --seed S (signed 64-bit) seeds its
 * splitmix64 generator. Values outside [0, 1] are clamped; a value that is not a number, an
 * unreadable file or an unknown argument prints one line to stderr and exits with code 2.
 *
 * Build: javac -d DIR Knob.java; run: java -cp DIR Knob [--skill X] [--seed S] [--params-file PATH]
 */
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

public final class Knob {
    private static final char[] DIR_NAMES = {'N', 'S', 'E', 'W'};
    private static final int[] DIR_DX = {0, 0, 1, -1};
    private static final int[] DIR_DY = {-1, 1, 0, 0};
    private static final Pattern DECIMAL = Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

    private static long rngState;

    private static long rngNext() {
        rngState += 0x9E3779B97F4A7C15L;
        long z = rngState;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static double rngDouble() {
        return (rngNext() >>> 11) * 0x1.0p-53;
    }

    private static int rngBelow(int n) {
        return (int) Long.remainderUnsigned(rngNext(), n);
    }

    private static void fail(String message) {
        System.err.println("knob: " + message);
        System.err.flush();
        System.exit(2);
    }

    // ------------------------------------------------------------------ numbers

    private static boolean isWs(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0x0B;
    }

    private static String trim(String s) {
        int a = 0, b = s.length();
        while (a < b && isWs(s.charAt(a))) a++;
        while (b > a && isWs(s.charAt(b - 1))) b--;
        return s.substring(a, b);
    }

    private static double number(String text, String what) {
        String t = trim(text);
        if (!DECIMAL.matcher(t).matches()) fail(what + ": not a number: '" + t + "'");
        double v = Double.parseDouble(t);
        if (Double.isNaN(v) || Double.isInfinite(v)) fail(what + ": not a finite number: '" + t + "'");
        return v;
    }

    private static double skillValue(String text, String what) {
        return Math.min(1.0, Math.max(0.0, number(text, what)));
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && s.charAt(0) == s.charAt(s.length() - 1) && (s.charAt(0) == '"' || s.charAt(0) == '\'')) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }

    // ---------------------------------------------------------- parameters file

    /** A tiny JSON reader: enough to find "skill" in a flat object and skip everything else. */
    private static final class Json {
        final String s;
        final String path;
        int p;

        Json(String s, String path) {
            this.s = s;
            this.path = path;
        }

        char at() {
            return p < s.length() ? s.charAt(p) : '\0';
        }

        void ws() {
            while (p < s.length() && isWs(s.charAt(p))) p++;
        }

        void bad() {
            fail("bad JSON in " + path);
        }

        /** At '"': the raw (still escaped) contents; p moves past the closing quote. */
        String string() {
            p++;
            int start = p;
            while (p < s.length() && s.charAt(p) != '"') {
                if (s.charAt(p) < 0x20) bad();
                if (s.charAt(p) == '\\') p++;
                p++;
            }
            if (p >= s.length()) bad();
            String raw = s.substring(start, p);
            p++;
            return raw;
        }

        /** -?(0|[1-9]digits)(.digits)?([eE][+-]?digits)?, or null (p unchanged). */
        String number() {
            int start = p, q = p;
            if (q < s.length() && s.charAt(q) == '-') q++;
            if (q < s.length() && s.charAt(q) == '0') {
                q++;
            } else if (q < s.length() && s.charAt(q) >= '1' && s.charAt(q) <= '9') {
                while (q < s.length() && Character.isDigit(s.charAt(q)) && s.charAt(q) < 128) q++;
            } else {
                return null;
            }
            if (q < s.length() && s.charAt(q) == '.') {
                q++;
                if (!(q < s.length() && s.charAt(q) >= '0' && s.charAt(q) <= '9')) return null;
                while (q < s.length() && s.charAt(q) >= '0' && s.charAt(q) <= '9') q++;
            }
            if (q < s.length() && (s.charAt(q) == 'e' || s.charAt(q) == 'E')) {
                q++;
                if (q < s.length() && (s.charAt(q) == '+' || s.charAt(q) == '-')) q++;
                if (!(q < s.length() && s.charAt(q) >= '0' && s.charAt(q) <= '9')) return null;
                while (q < s.length() && s.charAt(q) >= '0' && s.charAt(q) <= '9') q++;
            }
            p = q;
            return s.substring(start, q);
        }

        void skip(int depth) {
            if (depth > 100) bad();
            ws();
            char c = at();
            if (c == '"') {
                string();
            } else if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                p++;
                ws();
                if (at() == close) {
                    p++;
                    return;
                }
                for (;;) {
                    if (close == '}') {
                        if (at() != '"') bad();
                        string();
                        ws();
                        if (at() != ':') bad();
                        p++;
                    }
                    skip(depth + 1);
                    ws();
                    if (at() == close) {
                        p++;
                        return;
                    }
                    if (at() != ',') bad();
                    p++;
                    ws();
                }
            } else if (s.startsWith("true", p)) {
                p += 4;
            } else if (s.startsWith("false", p)) {
                p += 5;
            } else if (s.startsWith("null", p)) {
                p += 4;
            } else if (number() == null) {
                bad();
            }
        }

        /** The skill in a flat object, or null when absent. */
        Double skill() {
            Double skill = null;
            ws();
            if (at() != '{') bad();
            p++;
            ws();
            if (at() == '}') {
                p++;
            } else {
                for (;;) {
                    if (at() != '"') bad();
                    boolean isSkill = string().equals("skill");
                    ws();
                    if (at() != ':') bad();
                    p++;
                    ws();
                    if (isSkill) {
                        String num;
                        if (at() == '"') {
                            skill = skillValue(string(), "skill in " + path);
                        } else if ((num = number()) != null) {
                            skill = skillValue(num, "skill in " + path);
                        } else {
                            skip(0);
                            fail("skill in " + path + ": not a number");
                        }
                    } else {
                        skip(0);
                    }
                    ws();
                    if (at() == '}') {
                        p++;
                        break;
                    }
                    if (at() != ',') bad();
                    p++;
                    ws();
                }
            }
            ws();
            if (p != s.length()) fail("bad JSON in " + path + " (text after the object)");
            return skill;
        }
    }

    private static Double readParamsFile(String path) {
        String text = null;
        try {
            text = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            fail("cannot read parameters file " + path);
        }
        if (text.startsWith("\uFEFF")) text = text.substring(1);
        if (trim(text).startsWith("{")) return new Json(text, path).skill();
        Double skill = null;
        for (String line : text.split("\n", -1)) {
            int hash = line.indexOf('#');
            if (hash >= 0) line = line.substring(0, hash);
            line = trim(line);
            int eq = line.indexOf('=');
            if (line.isEmpty() || line.startsWith("[") || eq < 0) continue;
            if (unquote(trim(line.substring(0, eq))).equals("skill")) {
                skill = skillValue(unquote(trim(line.substring(eq + 1))), "skill in " + path);
            }
        }
        return skill;
    }

    // ----------------------------------------------------------------- the game

    private static int width, height;
    private static boolean[] water;
    private static int[][] nbr;
    private static boolean[] visited;
    private static int visitedCount;
    private static int[] mark;
    private static int stamp;
    private static int[] stack;

    /** Cells reachable from start through water (outside visited when useVisited), marked. */
    private static int region(int start, boolean useVisited) {
        int top = 0, count = 1;
        stamp++;
        mark[start] = stamp;
        stack[top++] = start;
        while (top > 0) {
            int c = stack[--top];
            for (int k = 0; k < 4; k++) {
                int n = nbr[c][k];
                if (n >= 0 && mark[n] != stamp && !(useVisited && visited[n])) {
                    mark[n] = stamp;
                    stack[top++] = n;
                    count++;
                }
            }
        }
        return count;
    }

    private static void resetVisited(int pos) {
        Arrays.fill(visited, false);
        visited[pos] = true;
        visitedCount = 1;
    }

    private static PrintStream out;

    private static void writeLine(String line) {
        out.print(line);
        out.print('\n');
        out.flush();
        if (out.checkError()) System.exit(0); // the referee closed our output
    }

    private static String optionValue(String[] argv, int[] i, String name) {
        String a = argv[i[0]];
        if (!a.startsWith(name)) return null;
        if (a.length() > name.length() && a.charAt(name.length()) == '=') return a.substring(name.length() + 1);
        if (a.length() != name.length()) return null;
        if (i[0] + 1 >= argv.length) fail(name + " needs a value");
        return argv[++i[0]];
    }

    public static void main(String[] argv) throws IOException {
        String skillArg = null, seedArg = null, paramsArg = null, v;
        int[] i = {0};
        for (; i[0] < argv.length; i[0]++) {
            if ((v = optionValue(argv, i, "--skill")) != null) {
                skillArg = v;
            } else if ((v = optionValue(argv, i, "--seed")) != null) {
                seedArg = v;
            } else if ((v = optionValue(argv, i, "--params-file")) != null) {
                paramsArg = v;
            } else {
                fail("unknown argument '" + argv[i[0]] + "'");
            }
        }
        double skill = 0.5;
        String env = System.getenv("KNOB_SKILL");
        if (env != null && !trim(env).isEmpty()) skill = skillValue(env, "KNOB_SKILL");
        if (paramsArg != null) {
            Double fromFile = readParamsFile(paramsArg);
            if (fromFile != null) skill = fromFile;
        }
        if (skillArg != null) skill = skillValue(skillArg, "--skill");
        long seed = 0;
        if (seedArg != null) {
            String t = trim(seedArg);
            try {
                if (!INTEGER.matcher(t).matches()) throw new NumberFormatException();
                seed = Long.parseLong(t);
            } catch (NumberFormatException e) {
                fail("--seed: not a signed 64-bit integer: '" + seedArg + "'");
            }
        }
        rngState = seed;

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");

        String line = in.readLine();
        if (line == null) return;
        String[] head = trim(line).split(" +");
        width = Integer.parseInt(head[0]);
        height = Integer.parseInt(head[1]);
        int cells = width * height;
        water = new boolean[cells];
        for (int y = 0; y < height; y++) {
            String row = in.readLine();
            if (row == null) return;
            for (int x = 0; x < width; x++) water[y * width + x] = x < row.length() && row.charAt(x) == '.';
        }
        nbr = new int[cells][4];
        for (int c = 0; c < cells; c++) {
            int x = c % width, y = c / width;
            for (int k = 0; k < 4; k++) {
                int nx = x + DIR_DX[k], ny = y + DIR_DY[k];
                nbr[c][k] = nx >= 0 && nx < width && ny >= 0 && ny < height && water[ny * width + nx] ? ny * width + nx : -1;
            }
        }
        visited = new boolean[cells];
        mark = new int[cells];
        stack = new int[cells];

        // Start: a seeded random cell of the largest body of water (the first on ties).
        int start = 0;
        {
            boolean[] done = new boolean[cells];
            int[] bodyMark = new int[cells];
            int bestSize = 0, bestStamp = 0;
            for (int c = 0; c < cells; c++) {
                if (water[c] && !done[c]) {
                    int size = region(c, false);
                    for (int d = 0; d < cells; d++) {
                        if (mark[d] == stamp) {
                            done[d] = true;
                            bodyMark[d] = stamp;
                        }
                    }
                    if (size > bestSize) {
                        bestSize = size;
                        bestStamp = stamp;
                    }
                }
            }
            if (bestSize > 0) {
                int pick = rngBelow(bestSize), seen = 0;
                for (int c = 0; c < cells; c++) {
                    if (water[c] && bodyMark[c] == bestStamp) {
                        if (seen == pick) {
                            start = c;
                            break;
                        }
                        seen++;
                    }
                }
            }
        }
        writeLine((start % width) + " " + (start / width));
        resetVisited(start);

        int[] dist = new int[cells];
        ArrayDeque<Integer> frontier = new ArrayDeque<>();
        List<Integer> targets = new ArrayList<>();
        for (;;) {
            String status = in.readLine();
            if (status == null || in.readLine() == null || in.readLine() == null) return;
            String[] f = trim(status).split(" +");
            int x = Integer.parseInt(f[0]), y = Integer.parseInt(f[1]), torpedoCd = Integer.parseInt(f[4]);
            int pos = y * width + x;
            if (!visited[pos]) resetVisited(pos);

            if (rngDouble() < 1.0 - skill && visitedCount > 1) {
                resetVisited(pos);
                writeLine("SURFACE");
                continue;
            }
            StringBuilder answer = new StringBuilder();
            if (torpedoCd == 0 && rngDouble() < skill) {
                Arrays.fill(dist, -1);
                dist[pos] = 0;
                frontier.clear();
                frontier.add(pos);
                while (!frontier.isEmpty()) {
                    int cur = frontier.poll();
                    if (dist[cur] == 4) continue;
                    for (int k = 0; k < 4; k++) {
                        int n = nbr[cur][k];
                        if (n >= 0 && dist[n] < 0) {
                            dist[n] = dist[cur] + 1;
                            frontier.add(n);
                        }
                    }
                }
                targets.clear();
                for (int c = 0; c < cells; c++) {
                    int dx = Math.abs(c % width - x), dy = Math.abs(c / width - y);
                    if (dist[c] >= 0 && Math.max(dx, dy) >= 2) targets.add(c);
                }
                if (!targets.isEmpty()) {
                    int t = targets.get(rngBelow(targets.size()));
                    answer.append("TORPEDO ").append(t % width).append(' ').append(t / width).append('|');
                }
            }
            int best = -1, bestArea = 0;
            for (int k = 0; k < 4; k++) {
                int n = nbr[pos][k];
                if (n >= 0 && !visited[n]) {
                    int area = region(n, true);
                    if (area > bestArea) {
                        best = k;
                        bestArea = area;
                    }
                }
            }
            if (best < 0) {
                resetVisited(pos);
                answer.append("SURFACE");
            } else {
                visited[nbr[pos][best]] = true;
                visitedCount++;
                answer.append("MOVE ").append(DIR_NAMES[best]).append(" TORPEDO");
            }
            writeLine(answer.toString());
        }
    }
}
