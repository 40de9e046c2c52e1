package dev.sharedarrays;

import dev.sharedarrays.internal.backend.Backends;
import dev.sharedarrays.internal.os.Proc;
import dev.sharedarrays.internal.segment.Registry;
import dev.sharedarrays.internal.segment.Segment;
import dev.sharedarrays.internal.sync.QueueDescriptor;
import dev.sharedarrays.internal.sync.QueueMessage;
import dev.sharedarrays.internal.sync.QueueProtocol;
import dev.sharedarrays.internal.sync.SlotLease;
import dev.sharedarrays.internal.sync.WaitThreads;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A bounded multi-producer multi-consumer queue of arrays in shared memory, passed by
 * {@link #handle()} like an array: what {@code mp.Queue().put(tensor)} is to torch, without
 * pickling, pipes or copies.
 *
 * <p><b>Messages.</b> {@link #send} of a pool slot ({@link ArrayPool#acquire}) moves the slot: the
 * sender's array is closed, the receiver's array owns the slot and frees it on close. Sending any
 * other shared array or view sends its handle and geometry (offset, shape, strides); the receiver
 * attaches the array once per queue instance and later messages of it reuse that mapping. What a
 * receiver gets stays valid until it closes it or this queue (which detaches those mappings).
 *
 * <p><b>End and failures.</b> {@link #end()} ends sending; receivers drain what is left, then
 * {@link #receive} returns null. A process registers as a producer at its first send and as a
 * consumer at its first receive: a receiver waiting on an empty queue whose registered producers
 * all died gets a {@link QueueAbandonedException} within about 50 ms, and so does a sender
 * waiting on a full queue whose consumers all died. Delivery is at most once: a process killed
 * in the middle of a send or receive loses that one message (its pool slot goes back to the
 * pool), never duplicates it or blocks the queue; the next send or receive, in any process,
 * completes what it left. A process stopped (SIGSTOP, a debugger) in the middle of a send or
 * receive holds the queue's lock until it continues or dies: meanwhile every wait of the others
 * still ends at its timeout (a {@link WaitTimeoutException} that names the stopped pid), the
 * {@code try} forms return at once, and {@link #end()} and {@link #close()} still complete.
 *
 * <p><b>Leaving is not dying.</b> A process whose queue instances are closed ({@link #close()},
 * or the shutdown hook, which closes the queues still open at a normal JVM exit, before pools and
 * arrays) has left: it is never among the "died" of a {@link QueueAbandonedException}. Leaving
 * does not end the queue, since other producers may register later: once every producer has left,
 * a receiver on the empty queue keeps waiting for a message or {@link #end()}, and gets a
 * {@link WaitTimeoutException} when its timeout runs out. A stream ends cleanly (receivers drain
 * it, then get null) when some process calls {@link #end()}, or when the creator of an
 * {@link Lifetime#OWNER} queue closes it, which its normal exit also does. So a producer that
 * should end the stream calls {@code end()} before it exits, unless it created the queue.
 *
 * <p><b>Ownership.</b> The creator's {@link #close()} of an {@link Lifetime#OWNER} queue ends it
 * and removes its name; attached processes keep draining their mapping. Others' close detaches.
 * A queue whose processes all died (or exited) is removed by the next sweep unless it is
 * {@link Lifetime#PERSISTENT}; the pool slots in flight in it then go back to their pools (see
 * {@link ArrayPool}).
 *
 * <p><b>Threads.</b> Thread-safe; FIFO for each producer. {@link #send} and {@link #receive} block
 * the calling thread (spinning briefly, then sleeping on a futex: no polling); their
 * {@code *Async} forms block a thread of this library's instead. Arguments must not be null.
 */
public final class ArrayQueue implements AutoCloseable {
    /** How long close waits for the queue's lock to list the messages left. */
    private static final long PENDING_TIMEOUT_NANOS = 1_000_000_000L;
    private final SharedNDArray<I64> array;
    private final QueueProtocol protocol;
    private final Map<Long, ArrayPool<?>> pools = new ConcurrentHashMap<>();
    private final Map<Long, SharedNDArray<?>> arrays = new ConcurrentHashMap<>();
    /** The entry of {@link #pools} the last message used. */
    private volatile LastPool lastPool;

    private record LastPool(long id, ArrayPool<?> pool) {
    }

    /** Set when close begins: waits end, no new operation starts. */
    private volatile boolean closing;
    /** Sends and receives in progress in this instance; close waits for them before it unmaps. */
    private final AtomicInteger busy = new AtomicInteger();
    private final Peers peers = new Peers();
    /** Closes this queue at normal exit (see {@link ExitClose}); forgotten by {@link #close()}. */
    private final ExitClose atExit;

    private ArrayQueue(SharedNDArray<I64> array, int capacity) {
        this.array = array;
        this.protocol = array.core().segment().guard(() -> new QueueProtocol(array.data(), capacity, array.handle().toString()));
        this.atExit = new ExitClose(this);
        Registry.atExit(atExit, Registry.ExitStage.QUEUES);
    }

    /** This instance's producer and consumer words, -1 until it registers; written under the queue's monitor. */
    private static final class Peers {
        volatile int producer = -1;
        volatile int consumer = -1;
    }

    /**
     * What the shutdown hook runs at normal exit, before pools and arrays are closed: the queue's
     * {@link #close()}, so that its producers and consumers count as left, not died, and the
     * creator's exit ends an OWNER queue. It holds the queue weakly; if the queue was collected
     * without close, it still leaves (and ends) through the words it keeps.
     */
    private static final class ExitClose implements Runnable {
        private final WeakReference<ArrayQueue> queue;
        private final SharedNDArray<I64> array;
        private final QueueProtocol protocol;
        private final Peers peers;

        ExitClose(ArrayQueue q) {
            this.queue = new WeakReference<>(q);
            this.array = q.array;
            this.protocol = q.protocol;
            this.peers = q.peers;
        }

        @Override
        public void run() {
            ArrayQueue q = queue.get();
            if (q != null) {
                q.close();
            } else if (!array.isClosed()) {
                array.core().segment().updateUnlessTruncated(() -> leave(array, protocol, peers));
            }
        }
    }

    /**
     * Creates a queue of {@code capacity} messages with the process's backend and a generated name.
     *
     * @throws IllegalArgumentException if {@code capacity < 1 || capacity > 65536}
     * @throws InsufficientSpaceException if the memory cannot be reserved
     */
    public static ArrayQueue create(int capacity) {
        return create(capacity, CreateOptions.defaults());
    }

    /**
     * Creates a queue as {@code options} say; see {@link #create(int)}.
     *
     * @throws SegmentExistsException if the name or file exists
     */
    public static ArrayQueue create(int capacity, CreateOptions options) {
        if (capacity < 1 || capacity > QueueDescriptor.MAX_CAPACITY) {
            throw new IllegalArgumentException("a queue holds 1 to " + QueueDescriptor.MAX_CAPACITY
                    + " messages, but capacity was " + capacity);
        }
        long tag = java.util.concurrent.ThreadLocalRandom.current().nextLong();
        // the words are written before the name appears: no process can attach a half-made queue
        Segment s = Backends.create(I64.TYPE, new long[] {QueueDescriptor.words(capacity)}, options,
                (d, control) -> QueueProtocol.initialize(d, capacity, tag));
        return new ArrayQueue(new SharedNDArray<>(s, I64.TYPE), capacity);
    }

    /**
     * Attaches the queue a handle names.
     *
     * @throws SegmentNotFoundException if nothing is there
     * @throws InvalidSegmentException if what is there is not a queue
     * @throws SegmentTruncatedException if its file was truncated (shm and file queues)
     */
    public static ArrayQueue attach(ArrayHandle handle) {
        SharedNDArray<?> any = SharedArrays.attach(handle);
        try {
            int capacity = any.dtype() == I64.TYPE && any.ndim() == 1
                    ? any.core().segment().guard(() -> QueueProtocol.capacity(any.data(), any.size())) : -1;
            if (capacity < 0) {
                throw new InvalidSegmentException(handle + " is not an array queue: it is an array of " + any.dtype() + " "
                        + Arrays.toString(any.shape()) + " without the queue's words");
            }
            return new ArrayQueue(any.as(I64.TYPE), capacity);
        } catch (RuntimeException e) {
            any.close();
            throw e;
        }
    }

    /** {@link #attach(ArrayHandle)} of {@link ArrayHandle#parse(String)}. */
    public static ArrayQueue attach(String handle) {
        return attach(ArrayHandle.parse(handle));
    }

    /** The handle to pass to other processes. */
    public ArrayHandle handle() {
        return array.handle();
    }

    /** How many messages the queue holds at most. */
    public int capacity() {
        return protocol.capacity();
    }

    /**
     * Messages sent and not yet received, now.
     *
     * @throws IllegalStateException if this queue is closed
     * @throws SegmentTruncatedException if another process truncated the queue's file (shm and file queues)
     */
    public long size() {
        checkOpen();
        return segment().guard(protocol::size);
    }

    /** True once some process called {@link #end()}; throws as {@link #size()}. */
    public boolean isEnded() {
        checkOpen();
        return segment().guard(protocol::isEnded);
    }

    /** Messages dropped because a process died in the middle of sending or receiving them; throws as {@link #size()}. */
    public long dropped() {
        checkOpen();
        return segment().guard(protocol::dropped);
    }

    private Segment segment() {
        return array.core().segment();
    }

    /**
     * Sends an array, waiting at most {@code timeout} for room. A pool slot moves to the receiver
     * (this array is closed); any other array or view is sent by handle and geometry.
     *
     * @throws WaitTimeoutException if the queue stayed full, or another process held the queue's
     *         lock (stopped or hung in the middle of a send or receive) until the time ran out
     * @throws IllegalStateException if the queue has ended, this queue or the array is closed
     * @throws IllegalArgumentException if the array is anonymous (not shareable), or its handle
     *         is longer than 320 bytes
     * @throws QueueAbandonedException if the queue is full and every registered consumer died
     * @throws InvalidSegmentException if the queue's words are damaged (nothing was sent)
     * @throws SegmentTruncatedException if another process truncated the file of the queue or of
     *         the array's pool (shm and file); the message may be lost
     * @throws java.util.concurrent.CancellationException if this thread was interrupted while
     *         waiting (nothing was sent; the interrupt flag stays set)
     */
    public void send(SharedNDArray<?> array, Duration timeout) {
        Thread t = Thread.currentThread();
        send(array, WaitThreads.nanos(timeout), t::isInterrupted, timeout);
    }

    /**
     * {@link #send} on a thread of this library's, for callers that must not block; cancelling the
     * future ends the wait. The future fails with what {@link #send} would throw.
     *
     * @throws SegmentTruncatedException as {@link #send} (a truncation found before the wait)
     */
    public CompletableFuture<Void> sendAsync(SharedNDArray<?> array, Duration timeout) {
        long nanos = WaitThreads.nanos(timeout);
        if (trySend(array)) {
            return CompletableFuture.completedFuture(null);
        }
        return WaitThreads.submit(cancelled -> {
            send(array, nanos, cancelled, timeout);
            return null;
        }, r -> { });
    }

    /**
     * Sends if there is room now; false if the queue is full or busy: it never waits for another
     * process (if the queue's lock stays held for more than a few µs, it gives up).
     * Throws as {@link #send}, but never times out.
     */
    public boolean trySend(SharedNDArray<?> array) {
        return sendMessage(array, 0, () -> false);
    }

    private void send(SharedNDArray<?> array, long nanos, BooleanSupplier cancelled, Duration timeout) {
        if (!sendMessage(array, nanos, cancelled)) {
            throw new WaitTimeoutException("queue " + handle() + " stayed full (" + capacity() + " messages) for " + timeout);
        }
    }

    /**
     * Runs op unless close has begun; close waits for it to finish before unmapping. A fault of a
     * truncated file in op is a SegmentTruncatedException (see Segment#guard).
     */
    private <R> R guarded(Supplier<R> op) {
        busy.incrementAndGet();
        try {
            checkOpen();
            return segment().guard(op);
        } finally {
            busy.decrementAndGet();
        }
    }

    private boolean sendMessage(SharedNDArray<?> a, long nanos, BooleanSupplier cancelled) {
        return guarded(() -> sendGuarded(a, nanos, () -> closing || cancelled.getAsBoolean()));
    }

    private boolean sendGuarded(SharedNDArray<?> a, long nanos, BooleanSupplier cancelled) {
        a.core().checkOpen();
        if (a.backend() == Backend.ANONYMOUS) {
            throw new IllegalArgumentException("an anonymous array cannot be sent to another process (" + a.handle()
                    + "); create it with the shm, memfd or file backend");
        }
        register(true);
        SlotLease lease = a.core().lease();
        // a slot array's id and handle are its pool's
        QueueMessage m = new QueueMessage(lease != null ? QueueMessage.Kind.POOL_SLOT : QueueMessage.Kind.VIEW, a.id(),
                lease != null ? lease.slot() : a.core().layout().offset(), a.dtype().code(), a.core().layout().shape(),
                a.core().layout().strides(), // the layout's own arrays: the message only reads them
                a.core().segment().handleText(), Proc.selfIdent(), 0);
        // the slot's words are its pool's: a fault there is named after the pool's file
        boolean sent = protocol.send(m, lease == null ? null : owner -> a.core().segment().guard(() -> lease.moveTo(owner)), nanos, cancelled);
        if (sent && lease != null) {
            a.core().sent();
        }
        return sent;
    }

    /**
     * Takes the next array, waiting at most {@code timeout} for one.
     *
     * @return the array, or null once the queue has ended and every message was received
     * @throws WaitTimeoutException if no message came in time, or another process held the
     *         queue's lock (stopped or hung in the middle of a send or receive) until then
     * @throws QueueAbandonedException if the queue is empty and every registered producer died
     * @throws SegmentNotFoundException if the array a message names was removed before it was attached
     * @throws InvalidSegmentException if the queue's words are damaged, or a message names what is not
     *         a pool or array it fits
     * @throws IllegalStateException if this queue is closed
     * @throws SegmentTruncatedException if another process truncated the queue's file (shm and file
     *         queues); the message may be lost
     * @throws java.util.concurrent.CancellationException if this thread was interrupted while
     *         waiting (nothing was taken; the interrupt flag stays set)
     */
    public SharedNDArray<?> receive(Duration timeout) {
        Thread t = Thread.currentThread();
        return receive(WaitThreads.nanos(timeout), t::isInterrupted, timeout);
    }

    /**
     * {@link #receive(Duration)} of an array that must hold {@code dtype}.
     *
     * @throws DTypeMismatchException if it holds another type (it is closed: a pool slot goes back)
     */
    public <T extends DType<T>> SharedNDArray<T> receive(T dtype, Duration timeout) {
        SharedNDArray<?> a = receive(timeout);
        if (a == null) {
            return null;
        }
        try {
            return a.as(dtype);
        } catch (DTypeMismatchException e) {
            a.close();
            throw e;
        }
    }

    /**
     * {@link #receive(Duration)} on a thread of this library's, for callers that must not block.
     * Cancelling the future ends the wait; a message taken after that is closed (a pool slot goes
     * back), so it is lost, as delivery is at most once. The future fails with what
     * {@link #receive(Duration)} would throw.
     *
     * @throws SegmentTruncatedException as {@link #receive(Duration)} (a truncation found before the wait)
     */
    public CompletableFuture<SharedNDArray<?>> receiveAsync(Duration timeout) {
        long nanos = WaitThreads.nanos(timeout);
        SharedNDArray<?>[] now = guarded(() -> {
            QueueMessage m = take(0, () -> false);
            return m == QueueProtocol.TIMED_OUT ? null : new SharedNDArray<?>[] {m == null ? null : resolve(m)};
        });
        if (now != null) {
            return CompletableFuture.completedFuture(now[0]);
        }
        return WaitThreads.submit(cancelled -> receive(nanos, cancelled, timeout), SharedNDArray::close);
    }

    private SharedNDArray<?> receive(long nanos, BooleanSupplier cancelled, Duration timeout) {
        return guarded(() -> {
            QueueMessage m = take(nanos, cancelled);
            if (m == QueueProtocol.TIMED_OUT) {
                throw new WaitTimeoutException("no message on queue " + handle() + " within " + timeout);
            }
            return m == null ? null : resolve(m);
        });
    }

    private QueueMessage take(long nanos, BooleanSupplier cancelled) {
        register(false);
        return protocol.receive(this::claimSlot, nanos, () -> closing || cancelled.getAsBoolean());
    }

    /** Moves the slot of message m from in flight to this process; false drops the message. */
    private boolean claimSlot(QueueMessage m) {
        if (closing) {
            throw new IllegalStateException("queue " + handle() + " is closing"); // the message stays for others
        }
        try {
            return poolOf(m).move((int) m.index(), protocol.inFlightOwner(m), Proc.selfIdent());
        } catch (RuntimeException e) {
            return false; // the pool is gone or not ours: the message cannot be delivered
        }
    }

    private ArrayPool<?> poolOf(QueueMessage m) {
        LastPool last = lastPool;
        ArrayPool<?> pool;
        if (last != null && last.id() == m.id()) {
            pool = last.pool(); // most queues carry one pool's slots: no boxed key and no map look-up each time
        } else {
            pool = pools.computeIfAbsent(m.id(), id -> attachPool(parse(m.handle()), DType.ofCode(m.dtypeCode())));
            lastPool = new LastPool(m.id(), pool);
        }
        if (m.index() < 0 || m.index() >= pool.slots()) {
            throw new InvalidSegmentException("message names slot " + m.index() + " of pool " + m.handle()
                    + ", which has " + pool.slots());
        }
        return pool;
    }

    private static ArrayHandle parse(String handle) {
        try {
            return ArrayHandle.parse(handle);
        } catch (IllegalArgumentException e) {
            throw new InvalidSegmentException("a queue message names " + handle + ", which is not a handle: " + e.getMessage());
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ArrayPool<?> attachPool(ArrayHandle handle, DType dtype) {
        return ArrayPool.attach(handle, dtype);
    }

    private SharedNDArray<?> resolve(QueueMessage m) {
        if (m.kind() == QueueMessage.Kind.POOL_SLOT) {
            return poolOf(m).adopt((int) m.index());
        }
        SharedNDArray<?> base = arrays.computeIfAbsent(m.id(), id -> SharedArrays.attach(parse(m.handle())));
        return SharedNDArray.of(base.core().viewOf(m.index(), m.shape(), m.strides()));
    }

    private void register(boolean asProducer) {
        if ((asProducer ? peers.producer : peers.consumer) < 0) { // a monitor each send or receive costs two atomics
            registerOnce(asProducer);
        }
    }

    private synchronized void registerOnce(boolean asProducer) {
        if (asProducer && peers.producer < 0) {
            peers.producer = protocol.register(true);
        } else if (!asProducer && peers.consumer < 0) {
            peers.consumer = protocol.register(false);
        }
    }

    /**
     * Ends the queue: later sends throw {@link IllegalStateException}; receivers take what is
     * left, then get null. Idempotent; does not wait for any other process.
     *
     * @throws IllegalStateException if this queue is closed
     * @throws SegmentTruncatedException if another process truncated the queue's file (shm and file queues)
     */
    public void end() {
        checkOpen();
        segment().guardRun(protocol::end);
    }

    private void checkOpen() {
        if (closing || array.isClosed()) {
            throw new IllegalStateException("queue " + handle() + " is closed");
        }
    }

    public boolean isClosed() {
        return array.isClosed();
    }

    /**
     * Lets go of the queue in this process: leaves as producer and consumer (not counted as dead;
     * the shutdown hook does this for a queue still open at normal exit),
     * detaches the pools and arrays received through it, and detaches the queue. The creator's
     * close of an {@link Lifetime#OWNER} queue first ends it. If no one else has the queue open
     * (shm and file queues), the pool slots of the messages left in it go back to their pools.
     * A truncated file does not make it fail: the words it would update are gone. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (array.isClosed()) {
            return;
        }
        Registry.forget(atExit);
        closing = true;
        // waits in other threads see `closing` within one sleep slice; unmapping under them would fail
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (busy.get() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            Thread.yield();
        }
        segment().updateUnlessTruncated(() -> {
            leave(array, protocol, peers);
            if (segment().isSoleUser()) {
                freePendingSlots();
            }
        });
        pools.values().forEach(ArrayPool::close);
        arrays.values().forEach(SharedNDArray::close);
        array.close();
    }

    /** Ends the queue if this is the creator of an OWNER queue, and leaves as producer and consumer. */
    private static void leave(SharedNDArray<I64> array, QueueProtocol protocol, Peers peers) {
        if (array.isOwner() && array.core().segment().facts().lifetime() == Lifetime.OWNER) {
            protocol.end();
        }
        if (peers.producer >= 0) {
            protocol.leave(true, peers.producer);
        }
        if (peers.consumer >= 0) {
            protocol.leave(false, peers.consumer);
        }
    }

    /**
     * No one else has the queue open, so no one can receive what is left: its pool slots go back.
     * A dead process's hold of the queue's lock is taken over within a sleep slice; the bound is
     * for the unforeseen, and then the slots stay in flight until their pool goes.
     */
    private void freePendingSlots() {
        List<QueueMessage> pending;
        try {
            pending = protocol.pending(PENDING_TIMEOUT_NANOS);
        } catch (WaitTimeoutException e) {
            return;
        }
        // one second for all (an attach may wait for a lock), and a pool that cannot be attached is tried once
        long deadline = System.nanoTime() + PENDING_TIMEOUT_NANOS;
        java.util.Set<Long> unreachable = new java.util.HashSet<>();
        for (QueueMessage m : pending) {
            if (System.nanoTime() - deadline > 0) {
                return; // what is left stays in flight until its pool goes
            }
            if (m.kind() == QueueMessage.Kind.POOL_SLOT && !unreachable.contains(m.id())) {
                try {
                    poolOf(m).move((int) m.index(), protocol.inFlightOwner(m), 0L);
                } catch (RuntimeException e) {
                    if (!pools.containsKey(m.id())) {
                        unreachable.add(m.id()); // gone or not ours: its slots went with it
                    }
                }
            }
        }
    }

    /** The handle, capacity, size and whether it ended; says so instead of throwing if the file was truncated. */
    @Override
    public String toString() {
        String head = "ArrayQueue(" + handle() + ", capacity=" + capacity();
        if (isClosed()) {
            return head + ", closed)";
        }
        try {
            return head + segment().guard(() -> ", size=" + protocol.size() + (protocol.isEnded() ? ", ended)" : ")"));
        } catch (SegmentTruncatedException e) {
            return head + ", file truncated)";
        }
    }
}
