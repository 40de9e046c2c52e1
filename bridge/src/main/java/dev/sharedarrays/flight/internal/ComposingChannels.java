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
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;

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
 * to 1 MiB and reads up to 1 MiB at a time from the server it chose; a server keeps HTTP/2's 16 KiB
 * frames and Netty's reads, so that a client that has not authenticated holds no more of it in a
 * frame it never finishes than before.
 */
public final class ComposingChannels {
    /** Bytes a connection may have queued for its socket before it is unwritable (and below which it is writable again). */
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(2 << 20, 4 << 20);
    /** The largest frame a client takes from the server it chose: a message of up to 1 MiB is one frame. */
    private static final int CLIENT_MAX_FRAME = 1 << 20;
    /** A client's reads: Netty's default sizes, but up to 1 MiB a read where that much waits. */
    private static final AdaptiveRecvByteBufAllocator CLIENT_READS = new AdaptiveRecvByteBufAllocator(64, 2048, 1 << 20);
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
                    if (client) { // applied when the server acknowledges it; HTTP/2 allows more SETTINGS at any time
                        ChannelHandlerContext hc = ctx.pipeline().context(h);
                        h.encoder().writeSettings(hc, new Http2Settings().maxFrameSize(CLIENT_MAX_FRAME), hc.newPromise());
                        hc.flush();
                    }
                    ctx.pipeline().remove(this);
                    break;
                }
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** A client connection. */
    private static final class Client extends NioSocketChannel {
        Client() {
            pipeline().addFirst(new Composing(true));
        }
    }

    /** An accepted connection. */
    private static final class Accepted extends NioSocketChannel {
        Accepted(io.netty.channel.Channel parent, SocketChannel socket) {
            super(parent, socket);
            pipeline().addFirst(new Composing(false));
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
