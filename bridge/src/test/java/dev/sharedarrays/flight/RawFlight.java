package dev.sharedarrays.flight;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Flight's DoGet and DoPut with their messages as raw bytes, for tests that send what no Flight client would. */
public final class RawFlight {
    public static final MethodDescriptor<byte[], byte[]> DO_GET = raw(MethodDescriptor.MethodType.SERVER_STREAMING, "DoGet");
    public static final MethodDescriptor<byte[], byte[]> DO_PUT = raw(MethodDescriptor.MethodType.BIDI_STREAMING, "DoPut");

    private RawFlight() {
    }

    private static MethodDescriptor<byte[], byte[]> raw(MethodDescriptor.MethodType type, String method) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(type).setFullMethodName("arrow.flight.protocol.FlightService/" + method)
                .setRequestMarshaller(new RawBytes()).setResponseMarshaller(new RawBytes()).build();
    }

    private static final class RawBytes implements MethodDescriptor.Marshaller<byte[]> {
        @Override
        public InputStream stream(byte[] b) {
            return new ByteArrayInputStream(b);
        }

        @Override
        public byte[] parse(InputStream in) {
            try {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
