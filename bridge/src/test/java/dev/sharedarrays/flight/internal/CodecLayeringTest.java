package dev.sharedarrays.flight.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The bridge's layers, checked on its compiled classes with the JDK's jdeps: the codec (Flight
 * messages as bytes: {@link #CODEC}) knows no pool, queue or array and calls no delivery or service
 * class; the delivery pump ({@link Delivery}) and the services (BridgeProducer, ServerPools,
 * Forwarding, Pulling) sit on it. Each failure names the offending "codec class -> type" edge.
 */
class CodecLayeringTest {
    private static final String BRIDGE = "dev.sharedarrays.flight.internal.";
    private static final String LIBRARY = "dev.sharedarrays.";
    private static final String FLIGHT = "dev.sharedarrays.flight.";

    /** The codec: Flight messages read and written, the DoGet/DoPut transport, the tensor's Arrow schema. */
    static final Set<String> CODEC = Set.of("Frame", "Frames", "Incoming", "Outgoing", "FrameService", "Stopped", "Stalled",
            "TensorSchema");

    /**
     * Bridge classes the codec may use beside its own: the reset of a server stream and the frame size
     * of an authenticated connection (gRPC's and Netty's internals, no delivery).
     */
    static final Set<String> CODEC_MAY_USE = Set.of("StreamReset", "ComposingChannels");

    /**
     * Library types the codec may use: the element types (TensorSchema maps them to Arrow's). No
     * array, pool, queue, handle or exception of the library: those are the pump's and the services'.
     */
    static final Set<String> LIBRARY_VALUES = Set.of("DType", "Bool", "F32", "F64", "I8", "I16", "I32", "I64", "U8", "U16", "U32",
            "U64");

    @Test
    void theCodecUsesNoPoolQueueArrayNorAnyDeliveryOrServiceClass() throws Exception {
        Set<List<String>> edges = classEdges(classesDirectory());
        long codecEdges = edges.stream().filter(e -> isCodec(e.get(0))).count();
        // a reader that reads nothing would pass vacuously
        assertTrue(codecEdges > 50, "edges of the codec classes read by jdeps: " + codecEdges);
        assertEquals(List.of(), misuses(edges), "codec class -> type it may not use");
    }

    @Test
    void aMisuseIsFoundAndNamed() {
        Set<List<String>> edges = new LinkedHashSet<>(List.of(
                List.of(BRIDGE + "Frames$Rows", LIBRARY + "ArrayPool"),
                List.of(BRIDGE + "Frames", LIBRARY + "SharedNDArray"),
                List.of(BRIDGE + "FrameService$2", BRIDGE + "BridgeProducer"),
                List.of(BRIDGE + "Incoming", BRIDGE + "Waits"),
                List.of(BRIDGE + "TensorSchema", LIBRARY + "F64"),
                List.of(BRIDGE + "TensorSchema", LIBRARY + "internal.array.Loops"),
                List.of(BRIDGE + "Frame", BRIDGE + "Frames$SharedMemory"),
                List.of(BRIDGE + "FrameService", BRIDGE + "StreamReset"),
                List.of(BRIDGE + "FrameService", FLIGHT + "ServeOptions"),
                List.of(BRIDGE + "Delivery", LIBRARY + "ArrayQueue"),
                List.of(BRIDGE + "Frame", "io.grpc.Detachable")));
        assertEquals(List.of(
                BRIDGE + "FrameService -> " + FLIGHT + "ServeOptions",
                BRIDGE + "FrameService$2 -> " + BRIDGE + "BridgeProducer",
                BRIDGE + "Frames -> " + LIBRARY + "SharedNDArray",
                BRIDGE + "Frames$Rows -> " + LIBRARY + "ArrayPool",
                BRIDGE + "Incoming -> " + BRIDGE + "Waits",
                BRIDGE + "TensorSchema -> " + LIBRARY + "internal.array.Loops"), misuses(edges));
    }

    static boolean isCodec(String type) {
        return type.startsWith(BRIDGE) && CODEC.contains(simpleOuter(type));
    }

    /** "Frames$Rows" of dev.sharedarrays.flight.internal.Frames$Rows. */
    private static String simpleOuter(String type) {
        String simple = type.substring(type.lastIndexOf('.') + 1);
        int nested = simple.indexOf('$');
        return nested < 0 ? simple : simple.substring(0, nested);
    }

    /** "codec class -> type" for each use of a library type other than the element types, or of a bridge class outside the codec. */
    static List<String> misuses(Set<List<String>> edges) {
        return edges.stream().filter(e -> isCodec(e.get(0)) && !allowed(e.get(1))).map(e -> e.get(0) + " -> " + e.get(1)).sorted().toList();
    }

    private static boolean allowed(String type) {
        if (!type.startsWith(LIBRARY)) {
            return true; // the JDK, gRPC, Netty, Arrow
        }
        if (type.startsWith(BRIDGE)) {
            return isCodec(type) || CODEC_MAY_USE.contains(simpleOuter(type));
        }
        if (type.startsWith(FLIGHT)) {
            return false; // the bridge's public face: the services' entry
        }
        String rest = type.substring(LIBRARY.length());
        return !rest.contains(".") && LIBRARY_VALUES.contains(simpleOuter(type));
    }

    private static Path classesDirectory() throws URISyntaxException {
        return Path.of(Frame.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Every "from -> to" line jdeps prints for the classes under {@code classes}, same-package edges too (-filter:none). */
    static Set<List<String>> classEdges(Path classes) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:class", "-filter:none", classes.toString());
        assertEquals(0, status, "jdeps -verbose:class " + classes + ": " + err);
        Set<List<String>> edges = new LinkedHashSet<>();
        for (String line : out.toString().split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length >= 3 && parts[1].equals("->")) {
                edges.add(List.of(parts[0], parts[2]));
            }
        }
        return edges;
    }
}
