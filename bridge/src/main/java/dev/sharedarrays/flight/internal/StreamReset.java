package dev.sharedarrays.flight.internal;

import io.grpc.ServerCall;
import io.grpc.Status;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Resets one server stream (RST_STREAM), for a client that reads nothing: gRPC keeps the messages
 * it could not send, and the pool slots under them, until the stream goes, and a status sent after
 * them never arrives. gRPC's {@code ServerCall} has no cancel; the stream of its implementation
 * ({@code io.grpc.internal.ServerCallImpl.stream}, an {@code io.grpc.internal.ServerStream}) has.
 * The call a handler gets is wrapped by interceptors (Arrow's middleware): unwrapped through
 * {@code ForwardingServerCall.delegate()}. A coupling to gRPC's internals: guarded by
 * ServerLimitsTest; it goes when grpc-java gives servers a way to cancel a call.
 */
final class StreamReset {
    private static final Method DELEGATE = method("io.grpc.PartialForwardingServerCall", "delegate");
    private static final Field STREAM = field("io.grpc.internal.ServerCallImpl", "stream");

    private StreamReset() {
    }

    private static Method method(String type, String name) {
        try {
            Method m = Class.forName(type).getDeclaredMethod(name);
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // another gRPC: a stalled stream then keeps its slots until its connection goes
        }
    }

    private static Field field(String type, String name) {
        try {
            Field f = Class.forName(type).getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Resets the stream under {@code call} with {@code status}; false if it cannot. */
    static boolean reset(ServerCall<?, ?> call, Status status) {
        if (DELEGATE == null || STREAM == null) {
            return false;
        }
        try {
            Object c = call;
            for (int depth = 0; depth < 16 && DELEGATE.getDeclaringClass().isInstance(c); depth++) {
                c = DELEGATE.invoke(c);
            }
            if (!STREAM.getDeclaringClass().isInstance(c)) {
                return false;
            }
            ((io.grpc.internal.ServerStream) STREAM.get(c)).cancel(status);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
