package dev.sharedarrays.flight.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 decoder's cumulator: a frame that comes a byte a read is held in at most
 * {@link BoundedComposite#MAX_PARTS} parts (a client trickling bytes cannot make a part a byte), large
 * reads stay parts of their own (not copied), and the bytes come out in order with every input let go.
 */
class BoundedCompositeTest {
    private final PooledByteBufAllocator alloc = new PooledByteBufAllocator(true);

    private ByteBuf bytes(int n, int from) {
        ByteBuf b = alloc.directBuffer(n);
        for (int i = 0; i < n; i++) {
            b.writeByte(from + i);
        }
        return b;
    }

    @Test
    void aFrameTrickledAByteAReadIsHeldInAtMostMaxPartsInOrder() {
        List<ByteBuf> inputs = new ArrayList<>();
        ByteBuf cumulation = bytes(1, 0);
        inputs.add(cumulation);
        int n = 20_000;
        for (int i = 1; i < n; i++) {
            ByteBuf in = bytes(1, i);
            inputs.add(in);
            cumulation = BoundedComposite.INSTANCE.cumulate(alloc, cumulation, in);
            if (cumulation instanceof CompositeByteBuf c) {
                assertTrue(c.numComponents() <= BoundedComposite.MAX_PARTS, "parts after " + i + " reads: " + c.numComponents());
            }
        }
        assertEquals(n, cumulation.readableBytes());
        for (int i = 0; i < n; i++) {
            assertEquals((byte) i, cumulation.getByte(cumulation.readerIndex() + i), "byte " + i);
        }
        cumulation.release();
        for (ByteBuf in : inputs) {
            assertEquals(0, in.refCnt(), "an input still held");
        }
    }

    @Test
    void largeReadsStayPartsOfTheirOwnAndAReadFrameGivesWayToTheNext() {
        ByteBuf cumulation = bytes(64 << 10, 0);
        for (int i = 1; i < 16; i++) {
            cumulation = BoundedComposite.INSTANCE.cumulate(alloc, cumulation, bytes(64 << 10, i));
        }
        CompositeByteBuf c = (CompositeByteBuf) cumulation;
        assertEquals(16, c.numComponents(), "16 reads of 64 KiB, no copy");
        assertEquals(16 << 16, c.readableBytes());
        assertEquals((byte) (15 + 100), c.getByte(15 * (64 << 10) + 100));
        // the decoder read everything: the next read replaces the cumulation
        c.skipBytes(c.readableBytes());
        ByteBuf next = bytes(10, 7);
        ByteBuf after = BoundedComposite.INSTANCE.cumulate(alloc, c, next);
        assertEquals(next, after);
        assertEquals(0, c.refCnt(), "the read cumulation let go");
        after.release();
    }
}
