package dev.sharedarrays.flight.internal;

import com.google.flatbuffers.FlatBufferBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.MetadataVersion;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The bridge's Flight messages: a schema, a one-row batch (its body sent from memory as it is, or
 * written into a buffer of the message's own), and the rows of a received batch. Bytes and
 * messages only: which array, slot or queue the bytes belong to is the caller's (the delivery pump).
 */
public final class Frames {
    private static final ByteBuf ZEROS = Unpooled.unreleasableBuffer(Unpooled.directBuffer(8).writeZero(8));

    private Frames() {
    }

    /** A schema message; a DoPut's first message carries its descriptor too. */
    public static Frame schema(Schema schema, FlightDescriptor descriptor) {
        ByteBuffer header = MessageSerializer.serializeMetadata(schema, IpcOption.DEFAULT);
        ByteBuffer d = descriptor == null ? null : descriptor.serialize();
        ByteBuf out = Unpooled.directBuffer(header.remaining() + (d == null ? 0 : d.remaining()) + 24);
        if (d != null) {
            field(out, Frame.DESCRIPTOR_FIELD, d.remaining());
            out.writeBytes(d);
        }
        field(out, Frame.HEADER_FIELD, header.remaining());
        out.writeBytes(header);
        return Frame.outgoing(out);
    }

    /** The IPC header of a one-row batch of tensors of {@code s} (the same for every array of a stream). */
    public static ByteBuffer batchHeader(TensorSchema s) {
        long bytes = s.bytes();
        FlatBufferBuilder b = new FlatBufferBuilder(160);
        // vectors of structs are built back to front
        RecordBatch.startNodesVector(b, 2);
        FieldNode.createFieldNode(b, s.elements(), 0);
        FieldNode.createFieldNode(b, 1, 0);
        int nodes = b.endVector();
        RecordBatch.startBuffersVector(b, 3);
        Buffer.createBuffer(b, 0, bytes); // the elements
        Buffer.createBuffer(b, 0, 0); // the elements' validity: none (no nulls)
        Buffer.createBuffer(b, 0, 0); // the list's validity: none
        int buffers = b.endVector();
        int batch = RecordBatch.createRecordBatch(b, 1, nodes, buffers, 0, 0);
        b.finish(Message.createMessage(b, MetadataVersion.V5, MessageHeader.RecordBatch, batch, align8(bytes), 0));
        return b.dataBuffer().slice();
    }

    /**
     * A one-row batch whose body is {@code body} itself, written to the socket without a copy:
     * {@code release} runs once gRPC wrote it or dropped it (at once if this throws), and the
     * memory must stay mapped until then.
     */
    public static Frame batch(ByteBuffer header, MemorySegment body, Runnable release) {
        long bytes = body.byteSize();
        try {
            checkSize(header, bytes);
        } catch (RuntimeException e) {
            release.run();
            throw e;
        }
        return withHeader(header, new SharedMemory(body.address(), (int) bytes, release), bytes);
    }

    /**
     * A one-row batch whose body of {@code bytes} {@code write} fills, in a direct buffer of the
     * message's own: for memory that cannot go out as it is (a strided view).
     */
    public static Frame batchCopy(ByteBuffer header, long bytes, Consumer<MemorySegment> write) {
        checkSize(header, bytes);
        ByteBuf data = Unpooled.directBuffer((int) bytes);
        try {
            write.accept(MemorySegment.ofAddress(data.memoryAddress()).reinterpret(bytes));
            data.writerIndex((int) bytes);
        } catch (RuntimeException | Error e) {
            data.release();
            throw e;
        }
        return withHeader(header, data, bytes);
    }

    private static void checkSize(ByteBuffer header, long bytes) {
        if (align8(bytes) + header.remaining() + 24 > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("an array of " + bytes + " bytes is more than one Flight message can carry (2 GiB)");
        }
    }

    /** The message around a body of {@code bytes} in {@code data}, which it now owns (released with it). */
    private static Frame withHeader(ByteBuffer header, ByteBuf data, long bytes) {
        long body = align8(bytes);
        CompositeByteBuf wire = null;
        try {
            ByteBuf prefix = Unpooled.directBuffer(header.remaining() + 24);
            field(prefix, Frame.HEADER_FIELD, header.remaining());
            prefix.writeBytes(header.duplicate());
            field(prefix, Frame.BODY_FIELD, body);
            // every part direct, so that Netty writes them as they are; no merging of parts (a copy)
            wire = new CompositeByteBuf(UnpooledByteBufAllocator.DEFAULT, true, Integer.MAX_VALUE);
            wire.addComponent(true, prefix);
            wire.addComponent(true, data); // the composite's now: released with it
            data = null;
            if (body > bytes) {
                wire.addComponent(true, ZEROS.retainedSlice(0, (int) (body - bytes)));
            }
            return Frame.outgoing(wire);
        } catch (RuntimeException | Error e) {
            if (data != null) {
                data.release(); // returns the slot
            }
            if (wire != null) {
                wire.release();
            }
            throw e;
        }
    }

    /** Shared memory as a Netty buffer; {@code release} runs when its last reference goes. */
    static final class SharedMemory extends UnpooledDirectByteBuf {
        private final Runnable release;

        SharedMemory(long address, int bytes, Runnable release) {
            super(UnpooledByteBufAllocator.DEFAULT, MemorySegment.ofAddress(address).reinterpret(bytes).asByteBuffer(), bytes);
            this.release = release;
        }

        @Override
        protected void deallocate() {
            try {
                super.deallocate();
            } finally {
                release.run();
            }
        }
    }

    static long align8(long n) {
        return (n + 7) & ~7L;
    }

    private static void field(ByteBuf out, int number, long length) {
        varint(out, ((long) number << 3) | 2);
        varint(out, length);
    }

    private static void varint(ByteBuf out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.writeByte((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    /** The rows of a received batch, read front to back, each straight into a destination. */
    public static final class Rows {
        private final Frame frame;
        private final long count;
        private final long dataOffset;
        private final long rowBytes;
        private long next;

        /** {@code schema} is the stream's Arrow schema, {@code s} its tensor form. */
        public Rows(Frame frame, Schema schema, TensorSchema s) {
            if (!frame.isBatch()) {
                throw Frame.invalid("expected a record batch, got IPC message type " + frame.message().headerType());
            }
            boolean list = schema.getFields().get(0).getType() instanceof ArrowType.FixedSizeList;
            long rows;
            long offset;
            long length;
            try {
                RecordBatch rb = (RecordBatch) frame.message().header(new RecordBatch());
                if (rb == null) {
                    throw Frame.invalid("a record batch message without its batch");
                }
                if (rb.compression() != null) {
                    throw new IllegalArgumentException("the batch is compressed; send uncompressed batches");
                }
                if (rb.nodesLength() < (list ? 2 : 1) || rb.buffersLength() < (list ? 3 : 2)) {
                    throw Frame.invalid("the batch has " + rb.nodesLength() + " field nodes and " + rb.buffersLength() + " buffers");
                }
                if (rb.nodes(0).nullCount() > 0) {
                    throw new IllegalArgumentException("the batch has " + rb.nodes(0).nullCount() + " null tensors; arrays have no nulls");
                }
                if (list && rb.nodes(1).nullCount() > 0) {
                    throw new IllegalArgumentException("the batch has " + rb.nodes(1).nullCount() + " null elements; arrays have no nulls");
                }
                Buffer data = rb.buffers(list ? 2 : 1);
                rows = rb.length();
                offset = data.offset();
                length = data.length();
            } catch (IndexOutOfBoundsException e) {
                // a flatbuffer whose offsets point outside it
                throw Frame.invalid("its IPC header is not an Arrow record batch (" + e + ")");
            }
            this.frame = frame;
            this.count = rows;
            this.rowBytes = s.bytes();
            this.dataOffset = offset;
            // (divisions: a hostile count or length must not overflow the check)
            if (count < 0 || count > Integer.MAX_VALUE || rowBytes <= 0 || count > length / rowBytes || dataOffset < 0
                    || dataOffset > frame.bodyLength() || count * rowBytes > frame.bodyLength() - dataOffset) {
                throw new IllegalArgumentException(count + " rows of " + s + " need " + count + " x " + rowBytes
                        + " bytes; the batch's buffer has " + length);
            }
        }

        public long count() {
            return count;
        }

        /** The bytes of one row. */
        public long rowBytes() {
            return rowBytes;
        }

        /** Copies the next row into dst (rowBytes bytes). */
        public void next(MemorySegment dst) {
            frame.skipTo(dataOffset + next * rowBytes);
            frame.copyTo(dst.asSlice(0, rowBytes));
            next++;
        }
    }
}
