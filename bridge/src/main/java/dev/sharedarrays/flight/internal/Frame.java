package dev.sharedarrays.flight.internal;

import io.grpc.Detachable;
import io.grpc.HasByteBuffer;
import io.grpc.MethodDescriptor;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.grpc.AddWritableBuffer;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One Flight {@code FlightData} message, read or written by the bridge itself rather than by Arrow
 * Java's {@code ArrowMessage}: Arrow Java reads every body through a heap array into a buffer of
 * its own (two copies before the bridge's copy into a pool slot), and writes a heap header in front
 * of the zero-copy body, which makes Netty copy the whole message into a direct buffer. Here a
 * received body stays in gRPC's buffers until it is copied once, into the slot; a sent one is a
 * direct buffer over the shared memory. The wire format is Flight's own: the protobuf fields
 * flight_descriptor (1), data_header (2, an Arrow IPC flatbuffer), app_metadata (3) and data_body
 * (1000).
 */
public final class Frame implements AutoCloseable {
    static final int DESCRIPTOR_FIELD = 1;
    static final int HEADER_FIELD = 2;
    static final int BODY_FIELD = 1000;

    /** Received: the descriptor's protobuf bytes, or null. */
    private final byte[] descriptor;
    /** Received: the IPC message, or null (a metadata-only message). */
    private final Message message;
    /** Received: the body, positioned at its first byte; null without one. */
    private InputStream body;
    private final long bodyLength;
    /** Bytes of the body already read. */
    private long bodyRead;
    /** Sent: the whole message, protobuf fields and body; null once handed to gRPC. */
    private ByteBuf wire;
    /** Received: why the message could not be read (it is then only this), or null. */
    private final RuntimeException failure;

    private Frame(byte[] descriptor, Message message, InputStream body, long bodyLength, ByteBuf wire, RuntimeException failure) {
        this.descriptor = descriptor;
        this.message = message;
        this.body = body;
        this.bodyLength = bodyLength;
        this.wire = wire;
        this.failure = failure;
    }

    /** A received message that could not be read: the thread that takes it throws {@code why}. */
    static Frame failed(RuntimeException why) {
        return new Frame(null, null, null, 0, null, why);
    }

    /** Why this received message could not be read, or null. */
    RuntimeException failure() {
        return failure;
    }

    /** A message to send: {@code wire} holds its protobuf bytes (direct buffers only); the stream releases it. */
    static Frame outgoing(ByteBuf wire) {
        return new Frame(null, null, null, 0, wire, null);
    }

    /** The descriptor a DoPut's first message carries, or null. */
    public FlightDescriptor descriptor() {
        if (descriptor == null) {
            return null;
        }
        try {
            return FlightDescriptor.deserialize(ByteBuffer.wrap(descriptor));
        } catch (IOException e) {
            throw invalid("its descriptor does not parse: " + e.getMessage());
        }
    }

    public boolean isSchema() {
        return message != null && message.headerType() == MessageHeader.Schema;
    }

    public boolean isBatch() {
        return message != null && message.headerType() == MessageHeader.RecordBatch;
    }

    /** Fields a schema may have in all, and levels it may nest: a tensor's needs 2 and 2. */
    static final int MAX_FIELDS = 1024;
    static final int MAX_FIELD_DEPTH = 32;

    /**
     * The schema of a schema message. Its field tree is walked first, bounded: Arrow's reader
     * recurses into children as the offsets lead, and a cyclic or very deep flatbuffer (offsets a
     * peer chose) would overflow the stack.
     */
    public Schema schema() {
        try {
            checkFieldTree((org.apache.arrow.flatbuf.Schema) message.header(new org.apache.arrow.flatbuf.Schema()));
            return MessageSerializer.deserializeSchema(message);
        } catch (org.apache.arrow.flight.FlightRuntimeException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            throw invalid("its schema does not parse: " + e);
        }
    }

    /** Walks the fields without recursion: at most MAX_FIELDS of them, at most MAX_FIELD_DEPTH deep (a cycle is either). */
    static void checkFieldTree(org.apache.arrow.flatbuf.Schema schema) {
        java.util.ArrayDeque<org.apache.arrow.flatbuf.Field> fields = new java.util.ArrayDeque<>();
        java.util.ArrayDeque<Integer> depths = new java.util.ArrayDeque<>();
        for (int i = 0; i < schema.fieldsLength(); i++) {
            fields.push(schema.fields(i));
            depths.push(1);
        }
        int seen = 0;
        while (!fields.isEmpty()) {
            org.apache.arrow.flatbuf.Field f = fields.pop();
            int depth = depths.pop();
            if (++seen > MAX_FIELDS) {
                throw invalid("its schema has more than " + MAX_FIELDS + " fields (or its field tree is a cycle)");
            }
            if (depth > MAX_FIELD_DEPTH) {
                throw invalid("its schema nests fields more than " + MAX_FIELD_DEPTH + " deep (or its field tree is a cycle)");
            }
            if (f == null) {
                continue;
            }
            for (int i = 0; i < f.childrenLength() && fields.size() <= MAX_FIELDS; i++) {
                fields.push(f.children(i));
                depths.push(depth + 1);
            }
        }
    }

    Message message() {
        return message;
    }

    long bodyLength() {
        return bodyLength;
    }

    /** Skips the body up to byte {@code offset}; the body is read front to back. */
    void skipTo(long offset) {
        if (offset < bodyRead) {
            throw invalid("the batch's buffers overlap or are out of order");
        }
        try {
            long n = offset - bodyRead;
            while (n > 0) {
                long k = body.skip(n);
                if (k <= 0) {
                    if (body.read() < 0) {
                        throw invalid("the message's body ends early");
                    }
                    k = 1;
                }
                n -= k;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        bodyRead = offset;
    }

    /** Copies {@code dst.byteSize()} bytes of the body, from where it stands, into dst. */
    void copyTo(MemorySegment dst) {
        long n = dst.byteSize();
        if (bodyRead + n > bodyLength) {
            throw invalid("the batch's buffers run past its body");
        }
        long at = 0;
        try {
            if (body instanceof HasByteBuffer h && h.byteBufferSupported()) {
                // gRPC's own buffers, one after another: one copy, into dst
                while (at < n) {
                    ByteBuffer b = h.getByteBuffer();
                    if (b == null || !b.hasRemaining()) {
                        break;
                    }
                    int k = (int) Math.min(b.remaining(), n - at);
                    MemorySegment.copy(MemorySegment.ofBuffer(b), 0, dst, at, k);
                    long skipped = body.skip(k);
                    if (skipped != k) {
                        throw invalid("the message's body ends early");
                    }
                    at += k;
                }
            }
            byte[] chunk = at < n ? new byte[(int) Math.min(1 << 16, n - at)] : null;
            while (at < n) {
                int k = body.read(chunk, 0, (int) Math.min(chunk.length, n - at));
                if (k < 0) {
                    throw invalid("the message's body ends early");
                }
                MemorySegment.copy(MemorySegment.ofArray(chunk), 0, dst, at, k);
                at += k;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        bodyRead += n;
    }

    static RuntimeException invalid(String why) {
        return CallStatus.INVALID_ARGUMENT.withDescription("a Flight message the bridge cannot read: " + why).toRuntimeException();
    }

    /** The message's bytes, once: from here on they are gRPC's to send and release. */
    private synchronized ByteBuf take() {
        ByteBuf w = wire;
        if (w == null) {
            // gRPC asked twice (a replay by its retry layer, which the bridge's channels turn off)
            throw new IllegalStateException("a Flight message of the bridge was marshalled twice");
        }
        wire = null;
        return w;
    }

    /** True once gRPC took the message's bytes ({@link #MARSHALLER}), or for a received message. */
    synchronized boolean taken() {
        return wire == null;
    }

    /**
     * Lets go of gRPC's buffers (received) or of a message to send that gRPC has not taken: a
     * sent message is closed only by its sender, and only if sending failed before gRPC took it.
     */
    @Override
    public synchronized void close() {
        if (body != null) {
            try {
                body.close();
            } catch (IOException e) {
                // gRPC's buffers: nothing to report
            }
            body = null;
        }
        if (wire != null) {
            wire.release();
            wire = null;
        }
    }

    /** FlightData both ways. */
    static final MethodDescriptor.Marshaller<Frame> MARSHALLER = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(Frame f) {
            return new WireStream(f.take());
        }

        @Override
        public Frame parse(InputStream in) {
            // never throws: gRPC would end the call on its own (UNKNOWN, CANCELLED) past the bridge's threads
            try {
                return read(in);
            } catch (IOException e) {
                return failed(invalid("it could not be read: " + e.getMessage()));
            } catch (RuntimeException e) {
                return failed(e instanceof org.apache.arrow.flight.FlightRuntimeException ? e : invalid(e.toString()));
            }
        }
    };

    /**
     * Reads the protobuf fields up to the body, which stays in gRPC's buffers (the stream is
     * detached from the call, so they outlive this callback) until copied.
     */
    static Frame read(InputStream raw) throws IOException {
        // a detached stream owns gRPC's buffers past this call; any other is closed when it returns
        boolean detached = raw instanceof Detachable;
        InputStream in = detached ? ((Detachable) raw).detach() : raw;
        boolean kept = false;
        try {
            byte[] descriptor = null;
            byte[] header = null;
            InputStream body = null;
            long bodyLength = 0;
            while (true) {
                long tag = readVarint(in, true);
                if (tag < 0) {
                    break;
                }
                int field = (int) (tag >>> 3);
                int wireType = (int) (tag & 7);
                if (wireType != 2) {
                    skipScalar(in, wireType);
                    continue;
                }
                long len = readVarint(in, false);
                if (len < 0 || in instanceof io.grpc.KnownLength && len > in.available()) {
                    throw invalid("field " + field + " announces " + len + " bytes, the message has " + in.available() + " left");
                }
                switch (field) {
                    case DESCRIPTOR_FIELD -> descriptor = readBytes(in, len);
                    case HEADER_FIELD -> header = readBytes(in, len);
                    case BODY_FIELD -> {
                        bodyLength = len;
                        if (header != null && detached) {
                            body = in; // Flight writes the body last: it is read from gRPC's buffers later
                        } else {
                            body = new ByteArrayInputStream(readBytes(in, len));
                            continue;
                        }
                    }
                    default -> skip(in, len);
                }
                if (body == in) {
                    break;
                }
            }
            Message message = null;
            if (header != null) {
                try {
                    message = Message.getRootAsMessage(ByteBuffer.wrap(header));
                    message.headerType();
                    message.bodyLength();
                } catch (RuntimeException e) {
                    throw invalid("its IPC header is not an Arrow message (" + e + ")");
                }
            }
            if (message != null && message.bodyLength() > bodyLength) {
                throw invalid("its IPC header announces a body of " + message.bodyLength() + " bytes, it has " + bodyLength);
            }
            kept = body == in;
            return new Frame(descriptor, message, body, bodyLength, null, null);
        } finally {
            if (!kept) {
                in.close();
            }
        }
    }

    private static long readVarint(InputStream in, boolean eofOk) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.read();
            if (b < 0) {
                if (eofOk && shift == 0) {
                    return -1;
                }
                throw invalid("the message ends inside a field");
            }
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw invalid("a malformed varint");
    }

    private static void skipScalar(InputStream in, int wireType) throws IOException {
        switch (wireType) {
            case 0 -> readVarint(in, false);
            case 1 -> skip(in, 8);
            case 5 -> skip(in, 4);
            default -> throw invalid("protobuf wire type " + wireType);
        }
    }

    private static byte[] readBytes(InputStream in, long len) throws IOException {
        if (len > Integer.MAX_VALUE - 8) {
            throw invalid("a field of " + len + " bytes");
        }
        byte[] b = in.readNBytes((int) len);
        if (b.length != len) {
            throw invalid("the message ends inside a field");
        }
        return b;
    }

    private static void skip(InputStream in, long len) throws IOException {
        in.skipNBytes(len);
    }

    /**
     * gRPC drains a message from here: the whole ByteBuf goes into gRPC's chain of buffers
     * unchanged (Arrow's helper for this), so the shared memory itself is written to the socket.
     * Not KnownLength on purpose: gRPC would then copy it into a buffer of that length.
     */
    static final class WireStream extends InputStream implements io.grpc.Drainable {
        private ByteBuf buf;

        WireStream(ByteBuf buf) {
            this.buf = buf;
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            ByteBuf b = buf;
            buf = null;
            if (b == null) {
                return 0;
            }
            try {
                int n = b.readableBytes();
                AddWritableBuffer.add(b, target, true); // retains b if it took it; copies it if not
                return n;
            } finally {
                b.release();
            }
        }

        @Override
        public int read() throws IOException {
            if (buf == null || !buf.isReadable()) {
                return -1;
            }
            return buf.readByte() & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (buf == null || !buf.isReadable()) {
                return -1;
            }
            int n = Math.min(len, buf.readableBytes());
            buf.readBytes(b, off, n);
            return n;
        }

        @Override
        public void close() {
            if (buf != null) {
                buf.release();
                buf = null;
            }
        }
    }
}
