package dev.sharedarrays.internal.ndarray;

import dev.sharedarrays.DType;
import dev.sharedarrays.internal.array.Casts;
import dev.sharedarrays.internal.array.Loops;
import dev.sharedarrays.internal.io.NpyWriter;
import dev.sharedarrays.internal.kernel.Op;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The work of {@code Conversions} and {@code Persistence}: a copy in another dtype, a save to .npy. */
public final class ConversionOps {
    private ConversionOps() {
    }

    /** A new process-local copy in dtype, converted as numpy's astype. */
    public static ArrayCore astype(ArrayCore a, DType<?> dtype) {
        return a.locks().read(() -> {
            a.checkOpen();
            ArrayCore out = ArrayCore.empty(dtype, a.layout().shape());
            if (ArrayCore.typeOf(dtype) == a.type()) {
                Loops.binary(a.type(), Op.ASSIGN, out.mem(), out.layout(), a.mem(), a.layout());
            } else {
                Casts.cast(a.type(), a.mem(), a.layout(), ArrayCore.typeOf(dtype), out.mem(), out.layout());
            }
            return out;
        });
    }

    /** Writes a .npy file at path under the read lock; own is the array's own file, which it refuses. */
    public static void save(ArrayCore a, Path path, Optional<Path> own) {
        a.checkOpen();
        try {
            if (own.isPresent() && Files.exists(path) && Files.isSameFile(path, own.get())) {
                throw new IllegalArgumentException("cannot save " + a.handle() + " to " + path
                        + ", its own segment file: the segment already is a .npy file, or save to another path");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e, e);
        }
        a.locks().read(() -> {
            NpyWriter.write(path, a.type(), a.mem(), a.layout());
            return null;
        });
    }
}
