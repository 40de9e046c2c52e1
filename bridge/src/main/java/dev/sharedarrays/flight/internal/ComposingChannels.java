package dev.sharedarrays.flight.internal;

import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.SocketUtils;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Netty channels for the bridge's connections whose HTTP/2 decoder keeps the buffers it reads as
 * parts of one composite ({@link BoundedComposite}) instead of copying each read behind the last (Netty's default for a
 * frame cut by a read, so about every read of a large message): the received bytes are then copied
 * once in this process, into the pool slot. The event loops are shared by all of this JVM's
 * bridge servers and clients, as gRPC's own defaults are.
 *
 * <p>Large messages move in large pieces: Netty's HTTP/2 flow controller writes only what the
 * channel takes before it turns unwritable (64 KiB by default), so each 1 MiB message went out in
 * 16 writes of a frame each, every one paying the TCP stack's push; the water mark lets it write a
 * message or more at once (docs/BENCHMARKS.md, "Across hosts"). A client also takes frames of up
 * to 1 MiB and reads up to 1 MiB at a time from the server it chose. A server keeps HTTP/2's 16 KiB
 * frames and Netty's reads on a connection until a DoPut on it has passed the token check
 * ({@link #authenticated}), so that a client that has not authenticated holds no more of it in a
 * frame it never finishes than before; from then on the connection takes frames of up to 1 MiB.
 */
public final class ComposingChannels {
    /** Bytes a connection may have queued for its socket before it is unwritable (and below which it is writable again). */
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(2 << 20, 4 << 20);
    /** The largest frame a client takes from the server it chose, and a server from an authenticated client: a message of up to 1 MiB is one frame. */
    private static final int MAX_FRAME = 1 << 20;
    /** A client's reads: Netty's default sizes, but up to 1 MiB a read where that much waits (one read a wake-up). */
    private static final AdaptiveRecvByteBufAllocator CLIENT_READS = new AdaptiveRecvByteBufAllocator(64, 2048, 1 << 20);
    /** A server connection's reads a wake-up at most: Netty's default for a socket, which a public setRecvByteBufAllocator does not apply. */
    private static final int READS_PER_WAKE_UP = 16;
    /**
     * Accepted connections while active, by their two ends' addresses (one TCP connection at a time has
     * them; every server of this JVM shares the map): an authenticated call finds its connection here.
     */
    private static final ConcurrentHashMap<List<SocketAddress>, Accepted> ACCEPTED = new ConcurrentHashMap<>();
    /** Connections of this JVM's servers that took frames of up to 1 MiB, for tests. */
    private static final AtomicLong WIDENED = new AtomicLong();
    private static final EventLoopGroup BOSS = group("sharedarrays-flight-accept", 1);
    private static final EventLoopGroup WORKERS = group("sharedarrays-flight-io", 0);

    private ComposingChannels() {
    }

    private static EventLoopGroup group(String name, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
    }

    static NettyChannelBuilder client(NettyChannelBuilder b) {
        return b.channelFactory(Client::new).eventLoopGroup(WORKERS).withOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .withOption(ChannelOption.RCVBUF_ALLOCATOR, CLIENT_READS);
    }

    static void server(NettyServerBuilder b) {
        b.channelFactory(Server::new).bossEventLoopGroup(BOSS).workerEventLoopGroup(WORKERS)
                .withChildOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK);
    }

    /**
     * Lets the server connection of a call that passed the token check (its two ends' addresses,
     * from the call's attributes) take frames of up to 1 MiB, once: HTTP/2 allows SETTINGS at any
     * time, and they apply when the client acknowledges them.
     */
    public static void authenticated(SocketAddress server, SocketAddress client) {
        Accepted c = server == null || client == null ? null : ACCEPTED.get(List.of(server, client));
        if (c != null) {
            c.widen();
        }
    }

    /** How many server connections of this JVM were let take frames of up to 1 MiB. */
    static long widened() {
        return WIDENED.get();
    }

    /**
     * The largest frame each active connection accepted on {@code port} takes now (its HTTP/2
     * decoder's, which changes when the client acknowledges the SETTINGS), for tests.
     */
    static List<Integer> maxFrameSizes(int port) throws Exception {
        List<Integer> out = new ArrayList<>();
        for (Accepted c : ACCEPTED.values()) {
            if (c.localAddress() != null && c.localAddress().getPort() == port) {
                out.add(c.eventLoop().submit(() -> {
                    Http2ConnectionHandler h = c.pipeline().get(Http2ConnectionHandler.class);
                    return h == null ? -1 : h.decoder().localSettings().maxFrameSize().intValue();
                }).get());
            }
        }
        return out;
    }

    /**
     * Sets the HTTP/2 decoder's cumulator at the first read that finds gRPC's handler in the
     * pipeline (with TLS: after the handshake), then leaves.
     */
    private static final class Composing extends ChannelInboundHandlerAdapter {
        private final boolean client;

        Composing(boolean client) {
            this.client = client;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            for (Map.Entry<String, ChannelHandler> e : ctx.pipeline()) {
                if (e.getValue() instanceof Http2ConnectionHandler h) {
                    h.setCumulator(BoundedComposite.INSTANCE);
                    if (client) {
                        takeLargeFrames(ctx.pipeline(), h);
                    }
                    ctx.pipeline().remove(this);
                    break;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * Tells the peer this end takes frames of up to {@link #MAX_FRAME}: applied when the peer
     * acknowledges it; HTTP/2 allows more SETTINGS at any time. On the connection's event loop.
     */
    private static void takeLargeFrames(io.netty.channel.ChannelPipeline pipeline, Http2ConnectionHandler h) {
        ChannelHandlerContext hc = pipeline.context(h);
        h.encoder().writeSettings(hc, new Http2Settings().maxFrameSize(MAX_FRAME), hc.newPromise());
        hc.flush();
    }

    /** A client connection. */
    private static final class Client extends NioSocketChannel {
        Client() {
            pipeline().addFirst(new Composing(true));
        }
    }

    /** An accepted connection. */
    private static final class Accepted extends NioSocketChannel {
        private final AtomicBoolean wide = new AtomicBoolean();

        Accepted(io.netty.channel.Channel parent, SocketChannel socket) {
            super(parent, socket);
            pipeline().addFirst(new Composing(false));
            pipeline().addFirst(new Listed());
            config().setRecvByteBufAllocator(new Reads(wide));
        }

        void widen() {
            if (!wide.compareAndSet(false, true)) {
                return;
            }
            WIDENED.incrementAndGet();
            eventLoop().execute(() -> {
                Http2ConnectionHandler h = pipeline().get(Http2ConnectionHandler.class);
                if (h != null && isActive()) {
                    takeLargeFrames(pipeline(), h);
                }
            });
        }
    }

    /** Keeps an accepted connection in {@link #ACCEPTED} from when it is active until it is not (a failed registration never is). */
    private static final class Listed extends ChannelInboundHandlerAdapter {
        private List<SocketAddress> ends;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            SocketAddress server = ctx.channel().localAddress();
            SocketAddress client = ctx.channel().remoteAddress();
            if (server != null && client != null) {
                ends = List.of(server, client);
                ACCEPTED.put(ends, (Accepted) ctx.channel());
            }
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (ends != null) {
                ACCEPTED.remove(ends, ctx.channel());
            }
            ctx.fireChannelInactive();
        }
    }

    /** A server connection's reads: Netty's default sizes (up to 64 KiB) until it is wide, then up to 1 MiB, as a client's. */
    private static final class Reads extends AdaptiveRecvByteBufAllocator {
        private static final int NARROW_MAX = 64 << 10;
        private final AtomicBoolean wide;

        Reads(AtomicBoolean wide) {
            super(64, 2048, 1 << 20);
            this.wide = wide;
            maxMessagesPerRead(READS_PER_WAKE_UP);
        }

        @Override
        public Handle newHandle() {
            return new DelegatingHandle(super.newHandle()) {
                @Override
                public int guess() {
                    int g = delegate().guess();
                    return wide.get() ? g : Math.min(g, NARROW_MAX);
                }

                @Override
                public io.netty.buffer.ByteBuf allocate(io.netty.buffer.ByteBufAllocator alloc) {
                    return alloc.ioBuffer(guess());
                }
            };
        }
    }

    /** A listening socket whose connections are {@link Accepted}. */
    private static final class Server extends NioServerSocketChannel {
        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            SocketChannel ch = SocketUtils.accept(javaChannel());
            if (ch == null) {
                return 0;
            }
            try {
                buf.add(new Accepted(this, ch));
                return 1;
            } catch (RuntimeException e) {
                ch.close();
                throw e;
            }
        }
    }
}
