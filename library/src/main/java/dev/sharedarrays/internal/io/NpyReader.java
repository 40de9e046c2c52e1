package dev.sharedarrays.internal.io;

import dev.sharedarrays.NpyFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * An open .npy file whose header has been read: {@link #readData} copies its data into memory
 * with positional reads of up to 1 GiB (no per-element work, no mapping that a file shrunk by
 * another process could turn into SIGBUS). Not thread-safe; close it.
 */
public final class NpyReader implements AutoCloseable {
    private static final int CHUNK = 1 << 30;

    private final Path path;
    private final FileChannel channel;
    private final NpyHeader header;

    private NpyReader(Path path, FileChannel channel, NpyHeader header) {
        this.path = path;
        this.channel = channel;
        this.header = header;
    }

    /**
     * Opens {@code path} (following symbolic links, as numpy does, but never blocking: see
     * {@link UserFile}) and reads its header.
     *
     * @throws NpyFormatException if it is not a regular file or not a .npy file this library reads
     * @throws UncheckedIOException if it cannot be read (missing: its cause is a NoSuchFileException)
     */
    public static NpyReader open(Path path) {
        FileChannel ch = null;
        try {
            // opened without blocking and checked by its descriptor: a FIFO swapped in cannot hang the load
            ch = UserFile.openForReading(path);
            FileChannel c = ch;
            long size = ch.size();
            byte[] first = readAt(ch, path, 0, (int) Math.min(size, 12));
            NpyHeader h = NpyHeader.parse(path, size, first, (offset, length) -> readAt(c, path, offset, length));
            return new NpyReader(path, ch, h);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new UncheckedIOException("cannot read " + path + ": " + e, e);
        } catch (RuntimeException | Error e) {
            closeQuietly(ch);
            throw e;
        }
    }

    public NpyHeader header() {
        return header;
    }

    /**
     * Copies the {@code header().dataLength()} bytes of data into {@code into}, which must be
     * that long.
     *
     * @throws NpyFormatException if the file ends early (it shrank after the header was read)
     */
    public void readData(MemorySegment into) {
        long length = header.dataLength();
        if (into.byteSize() != length) {
            throw new IllegalArgumentException("need " + length + " bytes to read into, got " + into.byteSize());
        }
        for (long done = 0; done < length; done += CHUNK) {
            fill(into.asSlice(done, Math.min(CHUNK, length - done)).asByteBuffer(), header.dataOffset() + done);
        }
    }

    private void fill(ByteBuffer buf, long position) {
        try {
            readFully(channel, path, buf, position);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e, e);
        }
    }

    private static byte[] readAt(FileChannel ch, Path path, long offset, int length) {
        byte[] out = new byte[length];
        try {
            readFully(ch, path, ByteBuffer.wrap(out), offset);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e, e);
        }
        return out;
    }

    private static void readFully(FileChannel ch, Path path, ByteBuffer buf, long position) throws IOException {
        long start = position;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, position);
            if (n < 0) {
                throw new NpyFormatException("file " + path + " is truncated: it ended at byte " + position + " while "
                        + (buf.remaining() + position - start) + " bytes from byte " + start + " were being read");
            }
            position += n;
        }
    }

    @Override
    public void close() {
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing was written; nothing to lose
            }
        }
    }
}
