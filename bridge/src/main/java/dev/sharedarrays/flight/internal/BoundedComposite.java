package dev.sharedarrays.flight.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Netty's composite cumulator ({@link ByteToMessageDecoder#COMPOSITE_CUMULATOR}: the reads of a
 * frame kept as parts of one buffer, not copied behind each other) with at most {@link #MAX_PARTS}
 * parts: past that the composite copies its parts into one. Unbounded, a client that sends a frame
 * a byte at a time made a part of each byte (a pooled buffer of 64 bytes or more and its entry),
 * about 200 times the frame's bytes held until the frame ends; bounded, a part costs at most one
 * copy of the frame so far every {@link #MAX_PARTS} reads.
 */
final class BoundedComposite implements ByteToMessageDecoder.Cumulator {
    static final int MAX_PARTS = 64;
    static final BoundedComposite INSTANCE = new BoundedComposite();

    private BoundedComposite() {
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (!cumulation.isReadable()) {
            cumulation.release();
            return in;
        }
        CompositeByteBuf composite = null;
        try {
            if (cumulation instanceof CompositeByteBuf c && c.refCnt() == 1 && c.maxNumComponents() <= MAX_PARTS) {
                composite = c;
                if (composite.writerIndex() != composite.capacity()) { // new parts go at the end
                    composite.capacity(composite.writerIndex());
                }
            } else {
                composite = alloc.compositeBuffer(MAX_PARTS).addFlattenedComponents(true, cumulation);
            }
            composite.addFlattenedComponents(true, in);
            in = null;
            return composite;
        } finally {
            if (in != null) { // not handed over: let go of it, and of a composite made here
                in.release();
                if (composite != null && composite != cumulation) {
                    composite.release();
                }
            }
        }
    }
}
