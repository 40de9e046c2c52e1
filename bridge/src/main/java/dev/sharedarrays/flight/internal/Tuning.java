package dev.sharedarrays.flight.internal;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.util.concurrent.TimeUnit;

/**
 * gRPC settings of both ends. gRPC-Java calls a stream ready only while less than 32 KiB wait to be
 * written: with messages of a MiB and more that lets one message out at a time, and the link idles
 * while the sender wakes up for the next. A threshold of the flow-control window keeps the window full.
 * Keepalive pings notice a connection that went silent (a cut cable, no reset): the server within
 * 5 s (2 s + 3 s), a client within 13 s (10 s + 3 s).
 */
public final class Tuning {
    /** gRPC's flow-control window of each connection: several large messages may be in flight. */
    public static final int FLOW_WINDOW = 16 << 20;
    /** Bytes a stream may have queued for the socket and still take another message. */
    public static final int ON_READY_THRESHOLD = FLOW_WINDOW;
    /** The server pings a silent client after this long; the connection is dead if no answer within KEEPALIVE_TIMEOUT. */
    public static final long KEEPALIVE_MILLIS = 2_000;
    /** A client pings a silent server after this long: gRPC-Java's least for clients (it raises smaller values to 10 s). */
    public static final long CLIENT_KEEPALIVE_MILLIS = 10_000;
    public static final long KEEPALIVE_TIMEOUT_MILLIS = 3_000;

    private Tuning() {
    }

    public static NettyChannelBuilder client(NettyChannelBuilder b) {
        // no retry layer: it keeps each message to marshal it again on a replay, and the bridge's
        // messages are shared memory handed to gRPC once (at most once, as on one host)
        return ComposingChannels.client(b).disableRetry()
                .maxInboundMessageSize(Integer.MAX_VALUE)
                .flowControlWindow(FLOW_WINDOW)
                .keepAliveTime(CLIENT_KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                .keepAliveWithoutCalls(true);
    }

    public static void server(NettyServerBuilder b) {
        ComposingChannels.server(b);
        b.flowControlWindow(FLOW_WINDOW)
                .keepAliveTime(KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                // the clients' pings come this often; the default minimum (5 min) would make the server drop them
                .permitKeepAliveTime(CLIENT_KEEPALIVE_MILLIS / 2, TimeUnit.MILLISECONDS)
                .permitKeepAliveWithoutCalls(true)
                .intercept(new ServerInterceptor() {
                    @Override
                    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                        call.setOnReadyThreshold(ON_READY_THRESHOLD);
                        return next.startCall(call, headers);
                    }
                });
    }
}
