package dev.sharedarrays

import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import java.io.PrintWriter
import java.io.StringWriter
import java.nio.file.Path
import java.util.spi.ToolProvider

/**
 * The internal packages form layers (os and kernel at the bottom, then sync, segment, array, io,
 * render, backend, ndarray): no package depends, directly or through others, on a package that depends on it.
 * Read from the compiled classes by the JDK's jdeps.
 */
class PackageCyclesTest : FunSpec({
    test("no import cycle among the internal packages") {
        val edges = PackageGraph.internalEdges(Path.of("target/classes"))
        withClue("edges read (a reader that reads nothing would pass vacuously): $edges") {
            edges.size shouldBeGreaterThan 10
        }
        withClue("cycles, each a set of packages that reach each other") {
            PackageGraph.cycles(edges).shouldBeEmpty()
        }
    }

    test("a cycle, direct or through a third package, is found") {
        val edges = setOf("a" to "b", "b" to "c", "c" to "a", "c" to "d", "d" to "e", "e" to "d", "f" to "a")
        PackageGraph.cycles(edges) shouldBe listOf(listOf("a", "b", "c"), listOf("d", "e"))
    }
})

internal object PackageGraph {
    private const val PREFIX = "dev.sharedarrays.internal."

    /** Package-to-package dependencies between internal packages, as jdeps -verbose:package prints them. */
    fun internalEdges(classes: Path): Set<Pair<String, String>> =
        jdepsEdges("-verbose:package", classes).filter { (from, to) -> from.startsWith(PREFIX) && to.startsWith(PREFIX) && from != to }
            .map { (from, to) -> from.removePrefix(PREFIX) to to.removePrefix(PREFIX) }.toSet()

    /** Every "from -> to" line jdeps prints for [classes] at [verbose] (-verbose:package or -verbose:class). */
    fun jdepsEdges(verbose: String, classes: Path): Set<Pair<String, String>> {
        val jdeps = ToolProvider.findFirst("jdeps").orElseThrow { AssertionError("this JDK has no jdeps") }
        val out = StringWriter()
        val err = StringWriter()
        val status = jdeps.run(PrintWriter(out), PrintWriter(err), verbose, classes.toString())
        withClue(err.toString()) { status shouldBe 0 }
        return out.toString().lines().mapNotNull { line ->
            val parts = line.trim().split(Regex("\\s+"))
            if (parts.size >= 3 && parts[1] == "->") parts[0] to parts[2] else null
        }.toSet()
    }

    /** The strongly connected components of more than one package, each sorted, in order of their first package. */
    fun cycles(edges: Set<Pair<String, String>>): List<List<String>> {
        val next = edges.groupBy({ it.first }, { it.second })
        val nodes = (edges.map { it.first } + edges.map { it.second }).toSortedSet()
        fun reach(from: String): Set<String> {
            val seen = mutableSetOf<String>()
            val todo = ArrayDeque(listOf(from))
            while (todo.isNotEmpty()) {
                for (n in next[todo.removeFirst()].orEmpty()) if (seen.add(n)) todo.add(n)
            }
            return seen
        }
        val reaches = nodes.associateWith { reach(it) }
        return nodes.map { a -> nodes.filter { b -> b == a || (b in reaches.getValue(a) && a in reaches.getValue(b)) } }
            .filter { it.size > 1 }.distinct()
    }
}
