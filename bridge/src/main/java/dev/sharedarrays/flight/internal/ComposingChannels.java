package dev.sharedarrays.flight.internal;

import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.SocketUtils;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;

/**
 * Netty channels for the bridge's connections whose HTTP/2 decoder keeps the buffers it reads as
 * parts of one composite instead of copying each read behind the last (Netty's default for a
 * frame cut by a read, so about every read of a large message): the received bytes are then copied
 * once in this process, into the pool slot. The event loops are shared by all of this JVM's
 * bridge servers and clients, as gRPC's own defaults are.
 */
public final class ComposingChannels {
    private static final EventLoopGroup BOSS = group("sharedarrays-flight-accept", 1);
    private static final EventLoopGroup WORKERS = group("sharedarrays-flight-io", 0);

    private ComposingChannels() {
    }

    private static EventLoopGroup group(String name, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
    }

    static NettyChannelBuilder client(NettyChannelBuilder b) {
        return b.channelFactory(Client::new).eventLoopGroup(WORKERS);
    }

    static void server(NettyServerBuilder b) {
        b.channelFactory(Server::new).bossEventLoopGroup(BOSS).workerEventLoopGroup(WORKERS);
    }

    /**
     * Sets the HTTP/2 decoder's cumulator at the first read that finds gRPC's handler in the
     * pipeline (with TLS: after the handshake), then leaves.
     */
    private static final class Composing extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            for (Map.Entry<String, ChannelHandler> e : ctx.pipeline()) {
                if (e.getValue() instanceof Http2ConnectionHandler h) {
                    h.setCumulator(ByteToMessageDecoder.COMPOSITE_CUMULATOR);
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
            pipeline().addFirst(new Composing());
        }
    }

    /** An accepted connection. */
    private static final class Accepted extends NioSocketChannel {
        Accepted(io.netty.channel.Channel parent, SocketChannel socket) {
            super(parent, socket);
            pipeline().addFirst(new Composing());
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
