/**
 * Typed N-dimensional numeric arrays in shared memory: {@link dev.sharedarrays.SharedArrays}
 * creates and attaches {@link dev.sharedarrays.SharedNDArray}s, passed between processes by
 * {@link dev.sharedarrays.ArrayHandle}; {@link dev.sharedarrays.SharedBarrier} orders phases.
 *
 * <p><b>Where a name lives.</b>
 * <ul>
 * <li><i>Arrays and their operation families.</i> {@link dev.sharedarrays.SharedNDArray}, its
 *     element type {@link dev.sharedarrays.DType} ({@link dev.sharedarrays.Bool},
 *     {@link dev.sharedarrays.I8} to {@link dev.sharedarrays.U64}, {@link dev.sharedarrays.F32},
 *     {@link dev.sharedarrays.F64}) and {@link dev.sharedarrays.Slice} for views. Its methods come
 *     in families, one interface each: {@link dev.sharedarrays.Arithmetic},
 *     {@link dev.sharedarrays.InPlaceArithmetic}, {@link dev.sharedarrays.Comparisons},
 *     {@link dev.sharedarrays.Logical}, {@link dev.sharedarrays.Masking},
 *     {@link dev.sharedarrays.Reductions}, {@link dev.sharedarrays.Sorting},
 *     {@link dev.sharedarrays.Conversions}, {@link dev.sharedarrays.BulkAccess},
 *     {@link dev.sharedarrays.Persistence}, {@link dev.sharedarrays.Rendering} (PNG pictures).
 *     numpy's free functions are static:
 *     {@link dev.sharedarrays.NDArrays} (constructors), {@link dev.sharedarrays.ArrayMath},
 *     {@link dev.sharedarrays.Masks} ({@code where}), {@link dev.sharedarrays.ArrayRandom}.</li>
 * <li><i>Creation and handles.</i> {@link dev.sharedarrays.SharedArrays} (create, attach, load,
 *     list, inspect), {@link dev.sharedarrays.CreateOptions},
 *     {@link dev.sharedarrays.AttachOptions}, {@link dev.sharedarrays.Backend} (where the memory
 *     is), {@link dev.sharedarrays.ArrayHandle} (the text another process attaches by),
 *     {@link dev.sharedarrays.HandleServer} (hands a memfd array's descriptor over a Unix
 *     socket; {@link dev.sharedarrays.SharedArrays#receive} takes it).</li>
 * <li><i>Lifetimes.</i> {@link dev.sharedarrays.Lifetime} (who removes a segment, and when);
 *     {@link dev.sharedarrays.SegmentInfo} describes one that exists, with its creator and
 *     attached processes.</li>
 * <li><i>Concurrency.</i> The cross-process readers-writer lock and atomic elements in
 *     {@link dev.sharedarrays.Locks}, a lock held as {@link dev.sharedarrays.HeldLock}, its
 *     snapshot {@link dev.sharedarrays.LockStatus}; {@link dev.sharedarrays.SharedBarrier} for
 *     phases.</li>
 * <li><i>Streaming.</i> {@link dev.sharedarrays.ArrayQueue} carries arrays between processes;
 *     {@link dev.sharedarrays.ArrayPool} lends the reusable slot arrays they travel in.</li>
 * <li><i>Errors.</i> {@link dev.sharedarrays.SharedArrayException} and its subclasses: for
 *     segments {@link dev.sharedarrays.SegmentExistsException},
 *     {@link dev.sharedarrays.SegmentNotFoundException},
 *     {@link dev.sharedarrays.SegmentTruncatedException},
 *     {@link dev.sharedarrays.InvalidSegmentException},
 *     {@link dev.sharedarrays.InsufficientSpaceException}; for arguments
 *     {@link dev.sharedarrays.DTypeMismatchException},
 *     {@link dev.sharedarrays.ShapeMismatchException}; for files
 *     {@link dev.sharedarrays.NpyFormatException}; for the OS
 *     {@link dev.sharedarrays.NativeCallException}; for waiting
 *     {@link dev.sharedarrays.WaitTimeoutException},
 *     {@link dev.sharedarrays.BarrierBrokenException},
 *     {@link dev.sharedarrays.QueueAbandonedException}.</li>
 * </ul>
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
