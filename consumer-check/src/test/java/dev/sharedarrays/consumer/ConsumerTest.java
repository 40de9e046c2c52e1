package dev.sharedarrays.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Runs the program that the Kotlin 2.0 compiler compiled against the DSL. */
class ConsumerTest {
    @Test
    void programCompiledWithKotlin20RunsTheDsl() {
        // frames i = 0..9 each carry a[1, 2] + i = 5.5 + i
        assertEquals(10 * 5.5 + 45.0, ConsumerKt.streamSum(10));
    }
}
