package dev.sharedarrays.samples;

import dev.sharedarrays.ArrayHandle;
import dev.sharedarrays.F64;
import dev.sharedarrays.HeldLock;
import dev.sharedarrays.I64;
import dev.sharedarrays.SharedArrays;
import dev.sharedarrays.SharedBarrier;
import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.Slice;
import java.time.Duration;

/**
 * The core API from Java, without the Kotlin DSL: create, element access, views, in-place
 * arithmetic, reductions, attach by handle, locks, atomics and a barrier.
 *
 * <pre>bin/demo java</pre>
 */
public final class CoreApi {
    private CoreApi() {
    }

    public static void main(String[] args) throws InterruptedException {
        try (SharedNDArray<F64> a = SharedArrays.create(F64.TYPE, 4, 5);
             SharedNDArray<I64> counter = SharedArrays.create(I64.TYPE, 1);
             SharedBarrier barrier = SharedBarrier.create(2)) {
            for (long i = 0; i < a.size(); i++) {
                a.setDouble(i, i);
            }
            a.mul(2.0);                                            // in place, every element
            SharedNDArray<F64> evenColumns = a.view(Slice.all(), Slice.every(2));
            evenColumns.add(100.0);                                // through a view: same memory
            System.out.println(a);
            System.out.println("sum " + a.sum() + ", max " + a.maxAsDouble() + ", a[3, 4] = " + a.getDouble(new long[] {3, 4}));
            try (SharedNDArray<F64> columnSums = a.sum(0)) {     // a new shared array
                System.out.println("column sums " + columnSums.toList());
            }

            // another process would do exactly this with the handle's text
            String handle = a.handle().toString();
            try (SharedNDArray<F64> same = SharedArrays.attach(ArrayHandle.parse(handle), F64.TYPE)) {
                same.setDouble(0, -1.0);
            }
            System.out.println("after a write through " + handle + ": a[0, 0] = " + a.getDouble(0));

            // several element accesses as one step, excluding other processes' bulk work and locks
            a.withWriteLock(() -> a.setDouble(1, a.getDouble(0) + a.getDouble(2)));
            try (HeldLock read = a.lockRead()) {
                System.out.println("under the read lock: a[0, 1] = " + a.getDouble(1) + ", lock " + a.lockStatus());
            }

            // a second party (a thread here; usually another JVM) meets this one at the barrier
            barrier.register();
            Thread party = Thread.ofPlatform().start(() -> {
                try (SharedBarrier b = SharedBarrier.attach(barrier.handle())) {
                    b.register();
                    counter.getAndAdd(0, 41);
                    b.await(Duration.ofSeconds(10));
                }
            });
            barrier.await(Duration.ofSeconds(10));                 // the party's write is visible after this
            System.out.println("counter after the barrier: " + counter.getAndAdd(0, 1) + " (then +1: " + counter.getVolatile(0) + ")");
            party.join();
        }                                                          // the creator's close removes all three
        System.out.println("shm segments of ours left: " + SharedArrays.list().size());
    }
}
