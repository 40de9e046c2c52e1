package dev.sharedarrays;

/**
 * A lock on an array held by the calling thread, from {@link SharedNDArray#lockWrite()} or
 * {@link SharedNDArray#lockRead()}; {@link #close()} releases it. Use it in try-with-resources,
 * on the thread that took it. Closing twice releases once.
 */
public interface HeldLock extends AutoCloseable {
    /** Releases the lock; later calls do nothing. */
    @Override
    void close();
}
