package dev.sharedarrays.internal.sync;

import dev.sharedarrays.InvalidSegmentException;
import dev.sharedarrays.QueueAbandonedException;
import dev.sharedarrays.WaitTimeoutException;
import dev.sharedarrays.internal.os.MappedWords;
import dev.sharedarrays.internal.os.Proc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import static dev.sharedarrays.internal.sync.QueueDescriptor.*;

/**
 * The bounded multi-producer multi-consumer queue on its words ({@link QueueDescriptor}).
 *
 * <p>A send or receive holds the queue's {@link ProcessMutex} for the few hundred nanoseconds it
 * takes to copy one cell. A send writes the cell, its position word last; moves the pool slot
 * (if any) from the sender to "in flight at this position"; then advances the tail, which
 * publishes it. A receive moves the slot from in flight to itself, then advances the head. Each
 * step is one atomic store, so a process killed anywhere leaves one of few states, which the next
 * holder of the mutex resolves: a complete cell past the tail is published (its receiver drops
 * it if its slot never went in flight: that slot stays with its dead sender, and the pool frees
 * it); a message whose slot no longer says "in flight at this position" is dropped. Nothing is
 * delivered twice, no slot is lost, and delivery is at most once.
 *
 * <p>Waiting senders sleep on the take word and receivers on the put word, after spinning; they
 * look once per slice whether the other side's registered processes still run.
 *
 * <p>Every wait, for room, for a message or for the mutex, ends at the caller's deadline. A
 * timeout of zero never waits for another process: a mutex busy for more than a few µs is "not
 * now". A process stopped (SIGSTOP, a debugger) while it holds the mutex therefore stalls no one
 * past their timeout; {@link #end} does not take the mutex at all.
 */
public final class QueueProtocol {
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    /** A dead holder of an unused queue's mutex is taken over within a slice; the bound is for the unforeseen. */
    private static final long UNUSED_QUEUE_TIMEOUT_NANOS = 1_000_000_000L;

    static {
        Backoff.link();
    }

    private final MemorySegment d;
    private final int capacity;
    private final long tag;
    private final String name;

    /** The protocol of the queue in memory {@code d}, whose capacity was checked by {@link #capacity}; name for messages. */
    public QueueProtocol(MemorySegment d, int capacity, String name) {
        this.d = d;
        this.capacity = capacity;
        this.tag = (long) LONG_VH.getVolatile(d, TAG_OFFSET);
        this.name = name;
    }

    /** Writes the words of a new queue into zeroed memory; the magic last. */
    public static void initialize(MemorySegment d, int capacity, long tag) {
        for (long p = 0; p < capacity; p++) {
            d.set(ValueLayout.JAVA_LONG, cellOffset(p, capacity) + CELL_POSITION, -1L);
        }
        LONG_VH.setVolatile(d, CAPACITY_OFFSET, (long) capacity);
        LONG_VH.setVolatile(d, TAG_OFFSET, tag);
        LONG_VH.setVolatile(d, MAGIC_OFFSET, MAGIC);
    }

    /** The capacity of the queue in memory {@code d} of {@code elements} I64s, or -1 if it holds none. */
    public static int capacity(MemorySegment d, long elements) {
        if (elements < words(1) || (long) LONG_VH.getVolatile(d, MAGIC_OFFSET) != MAGIC) {
            return -1;
        }
        long c = (long) LONG_VH.getVolatile(d, CAPACITY_OFFSET);
        return c >= 1 && c <= MAX_CAPACITY && elements == words((int) c) ? (int) c : -1;
    }

    public int capacity() {
        return capacity;
    }

    /** The tag pool slots in flight in this queue carry. */
    public long tag() {
        return tag;
    }

    /** Messages sent and not yet received; 0 if the words are damaged ({@link #damaged}). */
    public static long size(MemorySegment d) {
        long head = (long) LONG_VH.getVolatile(d, HEAD_OFFSET);
        long tail = (long) LONG_VH.getVolatile(d, TAIL_OFFSET);
        int capacity = (int) Math.min(MAX_CAPACITY, Math.max(0, (long) LONG_VH.getVolatile(d, CAPACITY_OFFSET)));
        return damaged(head, tail, capacity) ? 0 : tail - head;
    }

    /**
     * Whether head and tail are words no queue of this capacity can have. A queue's positions count
     * up from 0 and the tail is at most capacity past the head: {@code 0 <= head <= tail <= head +
     * capacity}, checked in this order so that no difference can overflow. Every loop from head to
     * tail is bounded by capacity only because of this check.
     */
    static boolean damaged(long head, long tail, int capacity) {
        return head < 0 || tail < head || tail - head > capacity;
    }

    /** The exception for words that {@link #damaged} refuses. */
    private InvalidSegmentException damagedQueue(long head, long tail) {
        return new InvalidSegmentException("queue " + name + " is damaged: head " + head + " and tail " + tail
                + " for a capacity of " + capacity + " (a queue has 0 <= head <= tail <= head + capacity); remove it with"
                + " sharedarrays rm --force and create it again");
    }

    public long size() {
        return size(d);
    }

    public boolean isEnded() {
        return (long) LONG_VH.getVolatile(d, ENDED_OFFSET) != 0;
    }

    public long dropped() {
        return (long) LONG_VH.getVolatile(d, DROPPED_OFFSET);
    }

    /**
     * Sends {@code m}; {@code moveSlot} gives its pool slot to the in-flight owner word it is
     * passed (true on success), or is null for a view. Waits at most timeoutNanos for room.
     *
     * @return false if the time ran out with the queue full, or the mutex was busy and
     *         timeoutNanos is 0 (nothing was sent)
     * @throws WaitTimeoutException if another process held the mutex until the time ran out
     *         (nothing was sent)
     * @throws IllegalStateException if the queue has ended, or the slot was not this process's
     * @throws IllegalArgumentException if the handle is longer than {@link QueueDescriptor#MAX_HANDLE_BYTES}
     * @throws QueueAbandonedException if the queue is full and every registered consumer died
     * @throws InvalidSegmentException if head and tail are {@link #damaged}
     */
    public boolean send(QueueMessage m, LongPredicate moveSlot, long timeoutNanos, BooleanSupplier cancelled) {
        byte[] handle = handleBytes(m.handle());
        if (handle.length > MAX_HANDLE_BYTES) {
            throw new IllegalArgumentException("the handle " + m.handle() + " is longer than " + MAX_HANDLE_BYTES
                    + " bytes, too long for a queue message; use a shorter path or name");
        }
        Wait wait = null;
        while (true) {
            if (!ProcessMutex.tryLock(d, MUTEX_OFFSET)) {
                wait = wait != null ? wait : new Wait(timeoutNanos, cancelled);
                if (!lock(wait, timeoutNanos, "send to")) {
                    return false;
                }
            }
            int seen;
            long tail;
            try {
                // inside the try: whatever it throws, the mutex is let go
                publishDeadSendersCell();
                seen = Futex.read(d, TAKE_SEQ_OFFSET);
                checkOpen();
                tail = (long) LONG_VH.getVolatile(d, TAIL_OFFSET);
                long head = (long) LONG_VH.getVolatile(d, HEAD_OFFSET);
                if (damaged(head, tail, capacity)) {
                    throw damagedQueue(head, tail);
                }
                if (tail - head < capacity) {
                    checkNotCancelled(cancelled);
                    write(cellOffset(tail, capacity), m, handle, tail);
                    if (moveSlot != null && !moveSlot.test(PoolProtocol.inQueue(tag, tail))) {
                        LONG_VH.setVolatile(d, cellOffset(tail, capacity) + CELL_POSITION, -1L);
                        throw new IllegalStateException("pool slot " + m.index() + " is not held by this process any more;"
                                + " it was closed or sent already");
                    }
                    // TAIL, HEAD and a cell's position publish to readers that load them (acquiring): release stores
                    // suffice, and no one waits on them (waits are on the seq words, whose add and waiters look order)
                    LONG_VH.setRelease(d, TAIL_OFFSET, tail + 1);
                    Futex.bump(d, PUT_SEQ_OFFSET, PUT_WAITERS_OFFSET);
                    return true;
                }
            } finally {
                ProcessMutex.unlock(d, MUTEX_OFFSET);
            }
            wait = wait != null ? wait : new Wait(timeoutNanos, cancelled);
            // each pass, not only the wait: a take word that another process keeps bumping ends no wait
            if (wait.expired() || !waitForChange(wait, TAKE_SEQ_OFFSET, TAKE_WAITERS_OFFSET, seen, CONSUMERS_OFFSET, "consumer", "full")) {
                return false;
            }
        }
    }

    /** A handle text and its UTF-8 bytes, which are never written to. */
    private record Encoded(String text, byte[] bytes) {
    }

    /** The last handle a send encoded: a stream of one pool's slots sends the same text each time. */
    private volatile Encoded lastHandle;

    private byte[] handleBytes(String text) {
        Encoded e = lastHandle;
        if (e == null || e.text() != text) {
            e = new Encoded(text, text.getBytes(StandardCharsets.UTF_8));
            lastHandle = e;
        }
        return e.bytes();
    }

    /**
     * Marks the end: later sends throw, receivers drain and then get null. Without the mutex, so
     * that a holder that does not progress cannot stall it: a send checks the word and publishes
     * under the mutex, and a receive returns null only under the mutex, having seen the queue
     * empty and the word set. A send that checked before this commits before any such receive
     * (which then takes its message); one that checks after throws. The bumps wake the sleepers
     * that read their word before the word was set.
     */
    public void end() {
        MappedWords.cas(d, ENDED_OFFSET, 0L, Proc.selfIdent());
        Futex.bump(d, PUT_SEQ_OFFSET, PUT_WAITERS_OFFSET);
        Futex.bump(d, TAKE_SEQ_OFFSET, TAKE_WAITERS_OFFSET);
    }

    /** What {@link #receive} returns when the time ran out. */
    public static final QueueMessage TIMED_OUT = new QueueMessage(QueueMessage.Kind.VIEW, 0, 0, 0, new long[0],
            new long[0], "", 0, -1);

    /**
     * Takes the next message; {@code claimSlot} tests a pool slot message, given the in-flight
     * owner word it must have, and moves the slot to this process (true), else the message is
     * dropped. Waits at most timeoutNanos for one.
     *
     * @return the message, null once the queue has ended and is drained, or {@link #TIMED_OUT} if
     *         the time ran out with the queue empty, or the mutex was busy and timeoutNanos is 0
     * @throws WaitTimeoutException if another process held the mutex until the time ran out
     * @throws QueueAbandonedException if the queue is empty and every registered producer died
     * @throws InvalidSegmentException if head and tail are {@link #damaged}
     */
    public QueueMessage receive(Predicate<QueueMessage> claimSlot, long timeoutNanos, BooleanSupplier cancelled) {
        Wait wait = null;
        QueueAbandonedException abandoned = null;
        while (true) {
            if (!ProcessMutex.tryLock(d, MUTEX_OFFSET)) {
                wait = wait != null ? wait : new Wait(timeoutNanos, cancelled);
                if (!lock(wait, timeoutNanos, "receive from")) {
                    return TIMED_OUT;
                }
            }
            int seen;
            try {
                publishDeadSendersCell();
                seen = Futex.read(d, PUT_SEQ_OFFSET);
                long head = (long) LONG_VH.getVolatile(d, HEAD_OFFSET);
                long tail = (long) LONG_VH.getVolatile(d, TAIL_OFFSET);
                if (damaged(head, tail, capacity)) {
                    throw damagedQueue(head, tail);
                }
                if (head < tail) {
                    checkNotCancelled(cancelled);
                    QueueMessage m = read(cellOffset(head, capacity), head);
                    boolean keep = m != null && (m.kind() != QueueMessage.Kind.POOL_SLOT || claimSlot.test(m));
                    LONG_VH.setRelease(d, HEAD_OFFSET, head + 1);
                    Futex.bump(d, TAKE_SEQ_OFFSET, TAKE_WAITERS_OFFSET);
                    if (keep) {
                        return m;
                    }
                    MappedWords.getAndAdd(d, DROPPED_OFFSET, 1L);
                    // a run of dropped messages is bounded by capacity, and the deadline still holds
                    wait = wait != null ? wait : new Wait(timeoutNanos, cancelled);
                    if (wait.expired()) {
                        return TIMED_OUT;
                    }
                    continue;
                }
                if (isEnded()) {
                    return null;
                }
                if (abandoned != null) {
                    throw abandoned;
                }
            } finally {
                ProcessMutex.unlock(d, MUTEX_OFFSET);
            }
            wait = wait != null ? wait : new Wait(timeoutNanos, cancelled);
            try {
                // each pass, not only the wait: a put word that another process keeps bumping ends no wait
                if (wait.expired() || !waitForChange(wait, PUT_SEQ_OFFSET, PUT_WAITERS_OFFSET, seen, PRODUCERS_OFFSET, "producer", "empty")) {
                    return TIMED_OUT;
                }
            } catch (QueueAbandonedException e) {
                // every producer died, the last perhaps mid-send (slot moved, tail not yet advanced):
                // one more look under the mutex publishes such a cell before the queue counts as abandoned
                abandoned = e;
            }
        }
    }

    /**
     * Waits until the futex word at seqOffset moves from {@code seen}, looking once per slice
     * whether the other side's registered processes still run; false if the time ran out. It
     * waits on the word alone: taking the mutex to look would slow down those who work.
     */
    private boolean waitForChange(Wait wait, long seqOffset, long waitersOffset, int seen, long peers, String who, String state) {
        while (Futex.read(d, seqOffset) == seen) {
            if (wait.expired()) {
                return false;
            }
            if (wait.livenessDue()) {
                checkPeers(peers, who, state);
            }
            wait.pause(d, seqOffset, waitersOffset, seen);
        }
        return true;
    }

    /** The owner word a pool slot of message {@code m} has while in flight here. */
    public long inFlightOwner(QueueMessage m) {
        return PoolProtocol.inQueue(tag, m.position());
    }

    /**
     * The messages not yet received, oldest first (for freeing their slots when no one can receive
     * them), waiting at most timeoutNanos for the mutex. If head and tail are {@link #damaged},
     * they name no range: then every complete cell, whatever its position (at most capacity).
     * Freeing compares a slot's owner word with "in flight at this position", so only slots still
     * in flight here go back either way.
     *
     * @throws WaitTimeoutException if another process held the mutex until the time ran out
     */
    public List<QueueMessage> pending(long timeoutNanos) {
        List<QueueMessage> out = new ArrayList<>();
        if (!ProcessMutex.tryLock(d, MUTEX_OFFSET)) {
            long nanos = Math.max(1, timeoutNanos); // at least 1: a busy mutex throws, never lists nothing
            lock(new Wait(nanos, () -> false), nanos, "list the messages of");
        }
        try {
            publishDeadSendersCell();
            long head = (long) LONG_VH.getVolatile(d, HEAD_OFFSET);
            long tail = (long) LONG_VH.getVolatile(d, TAIL_OFFSET);
            boolean damaged = damaged(head, tail, capacity);
            for (long i = damaged ? 0 : head; i < (damaged ? capacity : tail); i++) {
                long p = damaged ? (long) LONG_VH.getVolatile(d, cellOffset(i, capacity) + CELL_POSITION) : i;
                if (p < 0 || damaged && Math.floorMod(p, capacity) != i) {
                    continue; // an empty cell, or one whose position is not its own
                }
                QueueMessage m = read(cellOffset(p, capacity), p);
                if (m != null) {
                    out.add(m);
                }
            }
        } finally {
            ProcessMutex.unlock(d, MUTEX_OFFSET);
        }
        return out;
    }

    /**
     * {@link #pending(long)} of a queue that no process has open (a sweep holds it exclusively). Empty
     * if a live process holds its mutex: such words were copied from a queue in use (its holder
     * never lets go of this copy), and waiting for them would never end.
     */
    public List<QueueMessage> pendingOfUnusedQueue() {
        long holder = (long) LONG_VH.getVolatile(d, MUTEX_OFFSET);
        if (holder != 0 && Proc.identAlive(holder)) {
            return List.of();
        }
        try {
            return pending(UNUSED_QUEUE_TIMEOUT_NANOS);
        } catch (WaitTimeoutException e) {
            return List.of(); // another process took the queue meanwhile: it is in use after all
        }
    }

    /**
     * Takes the mutex, which was busy at the first try, by {@code wait}'s deadline; false if it is
     * still busy and timeoutNanos is 0 (a try never waits for another process).
     *
     * @throws WaitTimeoutException if a live process held it until the deadline of a timeout &gt; 0
     */
    private boolean lock(Wait wait, long timeoutNanos, String what) {
        long holder = ProcessMutex.lock(d, MUTEX_OFFSET, wait);
        if (holder == 0) {
            return true;
        }
        if (timeoutNanos == 0) {
            return false;
        }
        throw new WaitTimeoutException("could not " + what + " queue " + name + " within " + Duration.ofNanos(timeoutNanos)
                + ": its lock is held by " + Proc.describe(holder) + ". Nothing was done; the call may be repeated");
    }

    /** Under the mutex: a complete cell past the tail means its sender died after writing it; publish it. */
    private void publishDeadSendersCell() {
        long tail = (long) LONG_VH.getVolatile(d, TAIL_OFFSET);
        long head = (long) LONG_VH.getVolatile(d, HEAD_OFFSET);
        if (!damaged(head, tail, capacity) && tail - head < capacity
                && (long) LONG_VH.getVolatile(d, cellOffset(tail, capacity) + CELL_POSITION) == tail) {
            LONG_VH.setVolatile(d, TAIL_OFFSET, tail + 1);
            Futex.bump(d, PUT_SEQ_OFFSET, PUT_WAITERS_OFFSET);
        }
    }

    /** Checked under the mutex just before a commit: a cancelled wait sends or takes nothing. */
    private static void checkNotCancelled(BooleanSupplier cancelled) {
        if (cancelled.getAsBoolean()) {
            throw new java.util.concurrent.CancellationException("the wait was cancelled");
        }
    }

    private void checkOpen() {
        if (isEnded()) {
            throw new IllegalStateException("queue " + name + " has ended (pid "
                    + Proc.identPid((long) LONG_VH.getVolatile(d, ENDED_OFFSET)) + " called end()); nothing more can be sent");
        }
    }

    private void write(long c, QueueMessage m, byte[] handle, long position) {
        d.set(ValueLayout.JAVA_INT, c + CELL_KIND, m.kind().code);
        d.set(ValueLayout.JAVA_INT, c + CELL_NDIM, m.shape().length);
        d.set(ValueLayout.JAVA_LONG, c + CELL_ID, m.id());
        d.set(ValueLayout.JAVA_LONG, c + CELL_INDEX, m.index());
        d.set(ValueLayout.JAVA_INT, c + CELL_DTYPE, m.dtypeCode());
        d.set(ValueLayout.JAVA_INT, c + CELL_HANDLE_LENGTH, handle.length);
        for (int i = 0; i < m.shape().length; i++) {
            d.set(ValueLayout.JAVA_LONG, c + CELL_SHAPE + 8L * i, m.shape()[i]);
            d.set(ValueLayout.JAVA_LONG, c + CELL_STRIDES + 8L * i, m.strides()[i]);
        }
        d.set(ValueLayout.JAVA_LONG, c + CELL_SENDER, m.sender());
        MemorySegment.copy(handle, 0, d, ValueLayout.JAVA_BYTE, c + CELL_HANDLE, handle.length);
        LONG_VH.setRelease(d, c + CELL_POSITION, position); // after the cell's words; readers load it first, acquiring
    }

    /** The message in a cell, or null if the cell does not hold a well-formed one (dropped). */
    private QueueMessage read(long c, long position) {
        if ((long) LONG_VH.getVolatile(d, c + CELL_POSITION) != position) {
            return null;
        }
        QueueMessage.Kind kind = QueueMessage.Kind.of(d.get(ValueLayout.JAVA_INT, c + CELL_KIND));
        int ndim = d.get(ValueLayout.JAVA_INT, c + CELL_NDIM);
        int len = d.get(ValueLayout.JAVA_INT, c + CELL_HANDLE_LENGTH);
        if (kind == null || ndim < 1 || ndim > 8 || len < 0 || len > MAX_HANDLE_BYTES) {
            return null;
        }
        long[] shape = new long[ndim];
        long[] strides = new long[ndim];
        for (int i = 0; i < ndim; i++) {
            shape[i] = d.get(ValueLayout.JAVA_LONG, c + CELL_SHAPE + 8L * i);
            strides[i] = d.get(ValueLayout.JAVA_LONG, c + CELL_STRIDES + 8L * i);
        }
        return new QueueMessage(kind, d.get(ValueLayout.JAVA_LONG, c + CELL_ID), d.get(ValueLayout.JAVA_LONG, c + CELL_INDEX),
                d.get(ValueLayout.JAVA_INT, c + CELL_DTYPE), shape, strides, handleText(c + CELL_HANDLE, len),
                d.get(ValueLayout.JAVA_LONG, c + CELL_SENDER), position);
    }

    private volatile Decoded lastRead;

    /** The text of the handle bytes at off; the last one's String again when the bytes are the same. */
    private String handleText(long off, int len) {
        Decoded last = lastRead;
        if (last != null && last.bytes().byteSize() == len
                && MemorySegment.mismatch(d, off, off + len, last.bytes(), 0, len) < 0) {
            return last.text();
        }
        byte[] handle = new byte[len];
        MemorySegment.copy(d, ValueLayout.JAVA_BYTE, off, handle, 0, len);
        String text = new String(handle, StandardCharsets.UTF_8);
        lastRead = new Decoded(MemorySegment.ofArray(handle), text);
        return text;
    }

    private record Decoded(MemorySegment bytes, String text) {
    }

    // ---------------------------------------------------------------- producers and consumers

    /** Records this process as a producer (or consumer); the index of its word. Reuses words of dead or closed peers. */
    public int register(boolean producer) {
        long base = producer ? PRODUCERS_OFFSET : CONSUMERS_OFFSET;
        long me = Proc.selfIdent();
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < MAX_PEERS; i++) {
                long off = base + 8L * i;
                long w = (long) LONG_VH.getVolatile(d, off);
                boolean free = w == 0 || (pass == 1 && ((w & LEFT) != 0 || !Proc.identAlive(w)));
                if (free && MappedWords.cas(d, off, w, me)) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** Marks a registered word as closed, if it still holds this process. */
    public void leave(boolean producer, int index) {
        long off = (producer ? PRODUCERS_OFFSET : CONSUMERS_OFFSET) + 8L * index;
        MappedWords.cas(d, off, Proc.selfIdent(), Proc.selfIdent() | LEFT);
    }

    /** Throws if peers registered on one side and none of them still runs, at least one having died. */
    private void checkPeers(long base, String who, String state) {
        List<Long> dead = new ArrayList<>();
        for (int i = 0; i < MAX_PEERS; i++) {
            long w = (long) LONG_VH.getVolatile(d, base + 8L * i);
            if (w == 0 || (w & LEFT) != 0) {
                continue;
            }
            if (Proc.identAlive(w)) {
                return;
            }
            dead.add(Proc.identPid(w));
        }
        if (!dead.isEmpty()) {
            throw new QueueAbandonedException("queue " + name + " is " + state + " and every registered " + who
                    + " died (pids " + dead + ")" + (state.equals("empty") ? "; nothing more will arrive" : "; no one will take")
                    + ". Restart them, or end() the queue when the work is done", dead);
        }
    }
}
