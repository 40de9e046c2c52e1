package dev.sharedarrays.flight.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.flatbuffers.FlatBufferBuilder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.MetadataVersion;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The bridge's own reader of Flight's FlightData messages, on crafted and truncated bytes: it never
 * throws out of gRPC's parse callback, and a message it cannot read becomes a failed frame whose
 * INVALID_ARGUMENT says why (the call is then answered with it).
 */
class FrameParserTest {
    private static Frame parse(byte[] wire) {
        return Frame.MARSHALLER.parse(new ByteArrayInputStream(wire));
    }

    private static String failure(byte[] wire) {
        RuntimeException f = parse(wire).failure();
        assertTrue(f instanceof FlightRuntimeException, "a failed frame, got " + f);
        assertEquals(FlightStatusCode.INVALID_ARGUMENT, ((FlightRuntimeException) f).status().code());
        return f.getMessage();
    }

    /** A protobuf length-delimited field. */
    private static byte[] field(int number, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varint(out, (long) number << 3 | 2);
        varint(out, value.length);
        out.writeBytes(value);
        return out.toByteArray();
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) (v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    private static byte[] schemaHeader(Schema schema) {
        return bytes(MessageSerializer.serializeMetadata(schema));
    }

    @Test
    void aDescriptorAndASchemaAreRead() {
        byte[] descriptor = bytes(FlightDescriptor.path("queue/frames").serialize());
        Schema schema = new Schema(List.of(Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
        Frame f = parse(concat(field(Frame.DESCRIPTOR_FIELD, descriptor), field(Frame.HEADER_FIELD, schemaHeader(schema))));
        assertNull(f.failure());
        assertEquals(List.of("queue/frames"), f.descriptor().getPath());
        assertTrue(f.isSchema());
        assertFalse(f.isBatch());
        assertEquals(schema, f.schema());
    }

    @Test
    void emptyAndUnknownFieldsAreNoFailure() {
        Frame empty = parse(new byte[0]);
        assertNull(empty.failure());
        assertNull(empty.descriptor());
        assertFalse(empty.isSchema() || empty.isBatch());
        // a varint field (wire type 0), a 64-bit one (1), a 32-bit one (5) and an unknown bytes field are skipped
        byte[] scalars = {8, (byte) 0x96, 1, 17, 1, 2, 3, 4, 5, 6, 7, 8, 29, 1, 2, 3, 4};
        Frame skipped = parse(concat(scalars, field(7, new byte[] {1, 2, 3})));
        assertNull(skipped.failure());
        assertNull(skipped.descriptor());
    }

    @Test
    void truncatedMessagesAreInvalidArguments() {
        assertTrue(failure(new byte[] {(byte) 0x8a}).contains("the message ends inside a field"));
        byte[] tenFf = new byte[11];
        java.util.Arrays.fill(tenFf, (byte) 0xff);
        assertTrue(failure(tenFf).contains("a malformed varint"));
        // a descriptor field that announces 100 bytes and has 3
        assertTrue(failure(new byte[] {0x0a, 100, 1, 2, 3}).contains("the message ends inside a field"));
        // a length that is not there
        assertTrue(failure(new byte[] {0x0a}).contains("the message ends inside a field"));
        // a field of more bytes than an array holds
        ByteArrayOutputStream huge = new ByteArrayOutputStream();
        huge.write(0x0a);
        varint(huge, 1L << 40);
        assertTrue(failure(huge.toByteArray()).contains("a field of " + (1L << 40) + " bytes"));
        // groups (wire types 3 and 4) are not Flight's
        assertTrue(failure(new byte[] {0x0b}).contains("protobuf wire type 3"));
        // every prefix of a good message either reads or fails with INVALID_ARGUMENT
        Schema schema = new Schema(List.of(Field.nullable("x", new ArrowType.Int(32, true))));
        byte[] good = concat(field(Frame.DESCRIPTOR_FIELD, bytes(FlightDescriptor.path("array/a").serialize())),
                field(Frame.HEADER_FIELD, schemaHeader(schema)));
        for (int n = 0; n < good.length; n++) {
            Frame f = parse(java.util.Arrays.copyOf(good, n));
            assertTrue(f.failure() == null || f.failure() instanceof FlightRuntimeException, "prefix " + n + ": " + f.failure());
        }
    }

    @Test
    void aHeaderThatIsNoArrowMessageOrAnnouncesAMissingBodyIsInvalid() {
        assertTrue(failure(field(Frame.HEADER_FIELD, new byte[] {1, 2})).contains("its IPC header is not an Arrow message"));
        FlatBufferBuilder b = new FlatBufferBuilder();
        int message = org.apache.arrow.flatbuf.Message.createMessage(b, MetadataVersion.V5, MessageHeader.NONE, 0, 1000L, 0);
        b.finish(message);
        byte[] header = b.sizedByteArray();
        String why = failure(concat(field(Frame.HEADER_FIELD, header), field(Frame.BODY_FIELD, new byte[10])));
        assertTrue(why.contains("announces a body of 1000 bytes, it has 10"), why);
    }

    @Test
    void aDescriptorThatDoesNotParseIsInvalid() {
        Frame f = parse(field(Frame.DESCRIPTOR_FIELD, new byte[] {(byte) 0xff, (byte) 0xff}));
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, f::descriptor);
        assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
    }

    @Test
    void aSchemaNestedTooDeepIsInvalidNotAStackOverflow() {
        Field f = Field.nullable("leaf", new ArrowType.Int(8, true));
        for (int i = 0; i < Frame.MAX_FIELD_DEPTH + 5; i++) {
            f = new Field("l" + i, FieldType.nullable(ArrowType.List.INSTANCE), List.of(f));
        }
        Frame frame = parse(field(Frame.HEADER_FIELD, schemaHeader(new Schema(List.of(f)))));
        assertNull(frame.failure());
        FlightRuntimeException e = assertThrows(FlightRuntimeException.class, frame::schema);
        assertTrue(e.getMessage().contains("nests fields more than " + Frame.MAX_FIELD_DEPTH + " deep"), e.getMessage());
        List<Field> wide = new ArrayList<>();
        for (int i = 0; i <= Frame.MAX_FIELDS; i++) {
            wide.add(Field.nullable("c" + i, new ArrowType.Int(8, true)));
        }
        Frame many = parse(field(Frame.HEADER_FIELD, schemaHeader(new Schema(wide))));
        assertTrue(assertThrows(FlightRuntimeException.class, many::schema).getMessage().contains("more than " + Frame.MAX_FIELDS + " fields"));
    }

    @Test
    void randomBytesNeverEscapeTheParser() {
        Random r = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[r.nextInt(64)];
            r.nextBytes(b);
            Frame f = parse(b);
            assertTrue(f.failure() == null || f.failure() instanceof FlightRuntimeException, f.failure() + " for " + java.util.Arrays.toString(b));
            if (f.failure() == null && (f.isSchema())) {
                try {
                    f.schema();
                } catch (FlightRuntimeException e) {
                    assertEquals(FlightStatusCode.INVALID_ARGUMENT, e.status().code());
                }
            }
        }
    }
}
