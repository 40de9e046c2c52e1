package dev.sharedarrays.internal.io;

import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.array.StridedLayout;
import dev.sharedarrays.internal.kernel.ElementType;
import dev.sharedarrays.internal.kernel.Op;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Writes an array or view as a C-order .npy file (header as {@link NpyHeader#format}). A
 * contiguous layout is written straight from its memory; a strided one is gathered into a
 * buffer of at most 8 MiB at a time, whole row-major blocks, by the copy kernel. The caller
 * holds the array's read lock.
 */
public final class NpyWriter {
    private static final int BUFFER = 8 << 20;
    private static final int CHUNK = 1 << 30;

    private NpyWriter() {
    }

    /**
     * Writes the elements {@code layout} picks from {@code data} to {@code path}, replacing
     * what is there; on failure the partial file is deleted.
     *
     * @throws UncheckedIOException if the file cannot be written, or path is not a regular file
     *         (a FIFO, device, socket or directory: refused without blocking)
     */
    public static void write(Path path, ElementType type, MemorySegment data, StridedLayout layout) {
        FileChannel ch;
        try {
            // a FIFO or device at path is refused at once, never blocked on (see UserFile)
            ch = UserFile.openForWriting(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e, e);
        }
        boolean done = false;
        try (ch) {
            writeFully(ch, ByteBuffer.wrap(NpyHeader.format(type, layout.shape())));
            int item = type.itemSize();
            if (layout.isContiguous()) {
                long start = layout.offset() * item;
                long length = layout.size() * item;
                for (long off = 0; off < length; off += CHUNK) {
                    MemorySegment part = data.asSlice(start + off, Math.min(CHUNK, length - off));
                    // a small process-local array on the heap is a long[]: no ByteBuffer view of it
                    writeFully(ch, part.isNative() ? part.asByteBuffer() : ByteBuffer.wrap(part.toArray(ValueLayout.JAVA_BYTE)));
                }
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment buffer = arena.allocate(Math.min(BUFFER, layout.size() * item), item);
                    gather(ch, type, data, layout, buffer);
                }
            }
            done = true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e, e);
        } finally {
            if (!done) {
                deleteQuietly(path);
            }
        }
    }

    /** Writes the elements of layout in row-major order, in blocks that fit buffer. */
    private static void gather(FileChannel ch, ElementType type, MemorySegment data, StridedLayout layout,
            MemorySegment buffer) throws IOException {
        int item = type.itemSize();
        long bytes = layout.size() * item;
        if (bytes <= buffer.byteSize()) {
            Loops.binary(type, Op.ASSIGN, buffer, StridedLayout.contiguous(layout.shape()), data, layout);
            writeFully(ch, buffer.asSlice(0, bytes).asByteBuffer());
            return;
        }
        long rows = layout.shape()[0];
        long rowBytes = bytes / rows;
        long perBlock = buffer.byteSize() / rowBytes;
        if (perBlock == 0) { // a row is bigger than the buffer (never for 1 dimension): one row at a time
            for (long i = 0; i < rows; i++) {
                gather(ch, type, data, layout.select(0, i), buffer);
            }
            return;
        }
        for (long i = 0; i < rows; i += perBlock) {
            gather(ch, type, data, layout.slice(0, i, Math.min(rows, i + perBlock), 1), buffer);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    /** Deletes a partial regular file; a device such as /dev/full or a FIFO stays. */
    private static void deleteQuietly(Path path) {
        try {
            if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                Files.delete(path);
            }
        } catch (IOException ignored) {
            // the write failed already; that failure is the one to report
        }
    }
}
