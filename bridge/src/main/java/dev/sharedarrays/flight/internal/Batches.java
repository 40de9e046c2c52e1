package dev.sharedarrays.flight.internal;

import dev.sharedarrays.SharedNDArray;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/** Shared arrays into Arrow record batches and back. */
public final class Batches {
    private Batches() {
    }

    /**
     * Loads {@code array} as the one row of {@code root} (whose schema is the array's
     * {@link TensorSchema}). A contiguous array is not copied: the data buffer is an ArrowBuf over
     * the shared memory, and {@code release} runs once Arrow (and gRPC, with zero-copy writes)
     * let go of it; then the caller may close the array. A strided view is copied first, and
     * {@code release} runs at once.
     */
    public static void load(VectorSchemaRoot root, BufferAllocator allocator, SharedNDArray<?> array, Runnable release) {
        long bytes = Math.multiplyExact(array.size(), array.itemSize());
        ArrowBuf data;
        if (array.isContiguous()) {
            MemorySegment mem = array.data();
            long offset = contiguousOffset(array);
            data = wrap(allocator, mem.address() + offset, bytes, release);
        } else {
            data = allocator.buffer(bytes);
            try {
                copyStrided(array, MemorySegment.ofAddress(data.memoryAddress()).reinterpret(bytes));
            } finally {
                release.run();
            }
        }
        int elements = Math.toIntExact(array.size());
        ArrowBuf empty = allocator.getEmpty();
        try (ArrowRecordBatch batch = new ArrowRecordBatch(1,
                List.of(new ArrowFieldNode(1, 0), new ArrowFieldNode(elements, 0)), List.of(empty, empty, data))) {
            new VectorLoader(root).load(batch);
        } finally {
            data.close();
        }
    }

    /** An ArrowBuf over memory Arrow does not own; {@code release} runs when its last reference goes. */
    static ArrowBuf wrap(BufferAllocator allocator, long address, long bytes, Runnable release) {
        return allocator.wrapForeignAllocation(new ForeignAllocation(bytes, address) {
            @Override
            protected void release0() {
                release.run();
            }
        });
    }

    /** Byte offset of a contiguous array's first element in {@link SharedNDArray#data()}. */
    private static long contiguousOffset(SharedNDArray<?> array) {
        return array.elementOffset() * array.itemSize();
    }

    /** Copies a strided view element by element (rare: queues and arrays are mostly contiguous). */
    private static void copyStrided(SharedNDArray<?> array, MemorySegment dst) {
        long n = array.size();
        int item = array.itemSize();
        long[] shape = array.shape();
        long[] idx = new long[shape.length];
        for (long i = 0; i < n; i++) {
            long rem = i;
            for (int d = shape.length - 1; d >= 0; d--) {
                idx[d] = rem % shape[d];
                rem /= shape[d];
            }
            switch (item) {
                case 1, 2, 4 -> writeLong(dst, i, item, array.getLong(idx));
                default -> {
                    if (array.dtype().isFloatingPoint()) {
                        dst.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, array.getDouble(idx));
                    } else {
                        dst.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, array.getLong(idx));
                    }
                }
            }
        }
    }

    private static void writeLong(MemorySegment dst, long i, int item, long v) {
        switch (item) {
            case 1 -> dst.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            case 2 -> dst.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) v);
            default -> dst.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
        }
    }

    /** Rows in the root's first column. */
    public static int rows(VectorSchemaRoot root) {
        return root.getRowCount();
    }

    /**
     * Copies row {@code row} of the root's first column into {@code dst} (its {@code bytes}
     * bytes), checking that the column holds no nulls.
     */
    public static void copyRow(VectorSchemaRoot root, int row, TensorSchema schema, MemorySegment dst) {
        FieldVector v = root.getFieldVectors().get(0);
        long bytes = schema.bytes();
        if (v.getNullCount() > 0) {
            throw new IllegalArgumentException("the batch has " + v.getNullCount() + " null tensors; arrays have no nulls");
        }
        ArrowBuf src;
        long start;
        if (v instanceof FixedSizeListVector list) {
            FieldVector child = (FieldVector) list.getDataVector();
            if (child.getNullCount() > 0) {
                throw new IllegalArgumentException("the batch has " + child.getNullCount() + " null elements; arrays have no nulls");
            }
            src = child.getDataBuffer();
            start = (long) row * bytes;
        } else {
            src = v.getDataBuffer();
            start = (long) row * bytes;
        }
        if (start + bytes > src.capacity()) {
            throw new IllegalArgumentException("row " + row + " of " + schema + " needs bytes [" + start + ", " + (start + bytes)
                    + ") of a buffer of " + src.capacity());
        }
        MemorySegment.copy(MemorySegment.ofAddress(src.memoryAddress() + start).reinterpret(bytes), 0, dst, 0, bytes);
    }

    static String shape(long[] s) {
        return Arrays.toString(s);
    }
}
