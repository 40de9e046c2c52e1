package dev.sharedarrays.internal.sync;

import dev.sharedarrays.internal.os.MappedWords;
import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A mutex in shared memory held by a process: a holder word with the holder's ident, a futex
 * word bumped on each unlock that has sleepers, and their count. Not reentrant; hold it for
 * microseconds.
 *
 * <p>A waiter gives up at its {@link Wait}'s deadline, whoever holds the mutex: a holder that is
 * alive but does not progress (stopped by SIGSTOP or a debugger, or starved) delays the others by
 * their timeout at most. A holder that died is taken over by the next contender, within one sleep
 * slice or at its deadline, whichever comes first; the taker repairs what the dead holder left
 * half done (see {@link QueueProtocol}).
 *
 * <pre>
 * offset  +0 holder u64   +8 seq u32   +12 waiters u32
 * </pre>
 */
final class ProcessMutex {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    static final int SIZE = 16;
    /**
     * Spins on a busy mutex before looking at the clock: a few µs, which covers a running holder
     * (it holds the mutex for well under a µs), so that a zero timeout does not fail on a holder
     * that is about to let go.
     */
    private static final int TRY_SPINS = 200;

    private ProcessMutex() {
    }

    /** Takes the mutex at {@code off} if it is free now: one compare-and-set, no clock, no waiting. */
    static boolean tryLock(MemorySegment m, long off) {
        return MappedWords.cas(m, off, 0L, Proc.selfIdent());
    }

    /**
     * Takes the mutex at {@code off}, waiting at most until {@code wait}'s deadline (a wait of
     * zero spins a few µs and then looks once whether the holder still runs). Takes it over from a
     * dead holder.
     *
     * @return 0 once it is held by this process, else the ident of the live process that held it
     *         when the time ran out
     * @throws java.util.concurrent.CancellationException if the wait was cancelled
     */
    static long lock(MemorySegment m, long off, Wait wait) {
        long me = Proc.selfIdent();
        for (int i = 0; i < TRY_SPINS; i++) {
            if ((long) LONG_VH.getVolatile(m, off) == 0 && MappedWords.casLoaded(m, off, 0L, me)) {
                return 0;
            }
            Thread.onSpinWait();
        }
        long last = 0; // the last holder seen: what a wait that ran out reports
        while (true) {
            int seen = Futex.read(m, off + 8);
            long holder = (long) LONG_VH.getVolatile(m, off);
            if (holder == 0) {
                if (MappedWords.cas(m, off, 0L, me)) {
                    return 0;
                }
                // taken between the load and the CAS: a word that keeps changing must not outlast the deadline
                long now = (long) LONG_VH.getVolatile(m, off);
                last = now != 0 ? now : last;
                if (wait.expired() && last != 0) {
                    return last;
                }
                continue;
            }
            last = holder;
            boolean expired = wait.expired();
            // a last look before giving up: a dead holder is taken over even by a zero wait
            if ((wait.livenessDue() || expired) && !Proc.identAlive(holder)) {
                if (MappedWords.cas(m, off, holder, me)) {
                    return 0;
                }
                long now = (long) LONG_VH.getVolatile(m, off);
                if (expired && now != 0) {
                    return now; // another contender took it first; a word cycling through dead idents ends here too
                }
                continue;
            }
            if (expired) {
                return holder;
            }
            wait.pause(m, off + 8, off + 12, seen);
        }
    }

    /** Lets go; always bumps the futex word, so a contender that read it before cannot sleep through this. */
    static void unlock(MemorySegment m, long off) {
        LONG_VH.setRelease(m, off, 0L); // publication to the next holder; contenders sleep on seq, bumped next
        Futex.bump(m, off + 8, off + 12);
    }
}
