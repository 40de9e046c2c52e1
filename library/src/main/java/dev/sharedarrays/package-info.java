/**
 * Typed N-dimensional numeric arrays in shared memory: {@link dev.sharedarrays.SharedArrays}
 * creates and attaches {@link dev.sharedarrays.SharedNDArray}s, passed between processes by
 * {@link dev.sharedarrays.ArrayHandle}; {@link dev.sharedarrays.SharedBarrier} orders phases.
 *
 * <p><b>Nulls.</b> No method of this package accepts null for a parameter or returns null,
 * unless its documentation says so; a null argument is a {@link java.lang.NullPointerException}.
 * Absent values are {@link java.util.Optional} or {@link java.util.OptionalLong}.
 *
 * <p><b>Ownership.</b> The process that creates an array or barrier owns its OS resource and
 * removes it when it closes it (unless it is persistent); other processes attach and close
 * their own mapping. Every open array, view and barrier must be closed ({@link
 * java.lang.AutoCloseable}); a shutdown hook closes what is still open at normal exit, and
 * {@code bin/sharedarrays sweep} removes what processes that were killed left behind. After
 * close, every access throws {@link java.lang.IllegalStateException} and never reads unmapped
 * memory. Memory handed out by {@code data()} belongs to the array and becomes inaccessible
 * when it is closed.
 *
 * <p><b>Threads.</b> Every public type may be used from any thread. Element reads and writes are
 * plain memory accesses; bulk operations take the array's cross-process readers-writer lock;
 * atomic element operations are sequentially consistent. Handles, options, dtypes, slices and
 * exceptions are immutable.
 *
 * <p><b>Errors.</b> Each failure is a specific exception whose message carries the offending
 * values and, where there is one, the fix: {@link dev.sharedarrays.SharedArrayException} and
 * its subclasses for segments and the OS ({@link dev.sharedarrays.NativeCallException} names the
 * call and errno), {@link java.lang.IndexOutOfBoundsException},
 * {@link java.lang.IllegalArgumentException} and {@link java.lang.ArithmeticException} for bad
 * arguments, as each method's {@code @throws} lines say.
 */
package dev.sharedarrays;
