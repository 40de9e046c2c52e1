package dev.sharedarrays.internal.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Process identity and liveness. A process is (pid, start time), the start time being field 22
 * of /proc/&lt;pid&gt;/stat (clock ticks after boot), so that a reused pid does not make a dead
 * process look alive.
 */
public final class Proc {
    private static final long SELF_PID = ProcessHandle.current().pid();
    private static final long SELF_START = startTime(SELF_PID);

    static {
        // links the kill(2) downcall now: at the fd limit, loading its class could fail
        Libc.kill(SELF_PID, 0);
    }

    private Proc() {
    }

    public static long selfPid() {
        return SELF_PID;
    }

    public static long selfStartTime() {
        return SELF_START;
    }

    /** {@link #startTime} of a process whose /proc entry exists but cannot be read (hidepid, EMFILE). */
    static final long UNKNOWN = -1;

    /**
     * Start time of pid, 0 if there is no such process or it is a zombie (it has died and only
     * waits to be reaped), {@link #UNKNOWN} if its /proc entry cannot be read while kill(pid, 0)
     * says it exists: a lock or barrier must never take a live process for dead, and at the fd
     * limit a dead one is still seen as dead.
     */
    public static long startTime(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            return 0;
        }
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            // /proc unreadable (no descriptor left, hidepid): the kernel still answers whether pid exists
            return Libc.kill(pid, 0) == Libc.ESRCH ? 0 : UNKNOWN;
        }
        // comm (field 2) may contain spaces and ')': the fields after it start at the last ')'.
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return 0;
        }
        String[] f = stat.substring(close + 2).split(" ");
        // f[0] is field 3 (state), so field 22 is f[19]
        if (f.length < 20) {
            return 0;
        }
        char state = f[0].isEmpty() ? '?' : f[0].charAt(0);
        if (state == 'Z' || state == 'X' || state == 'x') {
            return 0;
        }
        try {
            return Long.parseLong(f[19]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * The state letter of pid in /proc/&lt;pid&gt;/stat ({@code 'T'} stopped by a signal, {@code 't'}
     * stopped by a debugger, {@code 'R'}, {@code 'S'}...), {@code 'X'} if there is no such
     * process, or {@code '?'} if it cannot be read (hidepid, no descriptor left).
     */
    public static char state(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            return '?';
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
            int close = stat.lastIndexOf(')');
            return close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
        } catch (NoSuchFileException e) {
            return 'X';
        } catch (IOException e) {
            return '?';
        }
    }

    /**
     * "pid N" and what it is doing, for the message of a wait that a holder outlasted: whether it
     * is stopped (SIGSTOP, a debugger), still runs, or has gone.
     */
    public static String describe(long ident) {
        long pid = identPid(ident);
        if (pid == SELF_PID) {
            return "pid " + pid + " (another thread of this process)";
        }
        char state = state(pid);
        String what = switch (state) {
            case 'T', 't' -> "stopped (SIGSTOP, ^Z or a debugger): it holds on until it is continued or killed";
            case 'Z', 'X', 'x' -> "gone: the next wait takes its hold over";
            case '?' -> "alive as far as the kernel says (its /proc entry cannot be read)";
            default -> "alive but not letting go";
        };
        return "pid " + pid + ", which is " + what;
    }

    /**
     * True if process (pid, start) runs. A start of 0 means "not recorded yet": then pid alone
     * decides.
     */
    public static boolean isAlive(long pid, long start) {
        if (pid == SELF_PID && (start == 0 || start == SELF_START)) {
            return true;
        }
        long actual = startTime(pid);
        return actual == UNKNOWN || actual != 0 && (start == 0 || actual == start);
    }

    private static final long START_MASK = (1L << 39) - 1;
    private static final long PID_MASK = (1L << 24) - 1;
    private static final long SELF_IDENT = ident(SELF_PID, SELF_START);

    /**
     * A process as one 64-bit word, for lock and barrier words that must be swapped atomically:
     * the pid in bits 0-23 (Linux pids stay below 2^22), the start time's low 39 bits above
     * (bit 63 stays clear for flags).
     */
    public static long ident(long pid, long start) {
        return ((start & START_MASK) << 24) | (pid & PID_MASK);
    }

    public static long selfIdent() {
        return SELF_IDENT;
    }

    public static long identPid(long ident) {
        return ident & PID_MASK;
    }

    /** True if the process an {@link #ident} names runs (the same pid and the same start). */
    public static boolean identAlive(long ident) {
        if (ident == SELF_IDENT) {
            return true;
        }
        long actual = startTime(identPid(ident));
        return actual == UNKNOWN || actual != 0 && ident(identPid(ident), actual) == ident;
    }
}
