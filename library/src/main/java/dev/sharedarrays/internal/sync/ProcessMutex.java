package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A mutex in shared memory held by a process: a holder word with the holder's ident, a futex
 * word bumped on each unlock that has sleepers, and their count. A holder that died is taken
 * over by the next contender within one sleep slice; {@link #lock} says so, so that the taker
 * can repair what the dead holder left half done. Not reentrant; hold it for microseconds.
 *
 * <pre>
 * offset  +0 holder u64   +8 seq u32   +12 waiters u32
 * </pre>
 */
final class ProcessMutex {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    static final int SIZE = 16;

    private ProcessMutex() {
    }

    /** Takes the mutex at {@code off}; true if it was taken over from a dead holder. */
    static boolean lock(MemorySegment m, long off) {
        long me = Proc.selfIdent();
        if (LONG_VH.compareAndSet(m, off, 0L, me)) {
            return false;
        }
        Wait wait = new Wait(Long.MAX_VALUE, () -> false);
        while (true) {
            int seen = Futex.read(m, off + 8);
            long holder = (long) LONG_VH.getVolatile(m, off);
            if (holder == 0) {
                if (LONG_VH.compareAndSet(m, off, 0L, me)) {
                    return false;
                }
                continue;
            }
            if (wait.livenessDue() && !Proc.identAlive(holder) && LONG_VH.compareAndSet(m, off, holder, me)) {
                return true;
            }
            wait.pause(m, off + 8, off + 12, seen);
        }
    }

    /** Lets go; always bumps the futex word, so a contender that read it before cannot sleep through this. */
    static void unlock(MemorySegment m, long off) {
        LONG_VH.setVolatile(m, off, 0L);
        Futex.bump(m, off + 8, off + 12);
    }
}
