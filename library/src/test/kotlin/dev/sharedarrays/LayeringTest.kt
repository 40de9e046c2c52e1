package dev.sharedarrays

import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import java.nio.file.Files
import java.nio.file.Path
import kotlin.io.path.extension
import kotlin.io.path.readBytes

/**
 * The rules a reader of the library assumes, checked on its compiled classes (jdeps, and the class
 * files' bytes for names in strings):
 * - the internal packages use of the API only its exceptions, value types, options and element-type
 *   markers: never an array, a queue, a pool, a barrier or a facet (those are the API's, built on the
 *   internals, not the other way round);
 * - the public face declares: SharedNDArray's facets (the interfaces it implements) and the static
 *   operation classes (ArrayMath, Masks, NDArrays) hand their work to internal.ndarray's operation
 *   classes, naming of the other internals only the enums that select an operation;
 * - the core references no class of the other modules (the Flight bridge, Spark, the notebook
 *   kernels, the DSL): not by a type, not by a name in a string (`serve` is found through ServiceLoader).
 * Each failure names the offending class and what it uses.
 */
class LayeringTest : FunSpec({
    val deps = Layering.classEdges(Path.of("target/classes"))

    test("the internal packages use of the API only exceptions, value types, options and dtype markers") {
        withClue("edges read (a reader that reads nothing would pass vacuously): ${deps.size}") {
            deps.count { it.first.startsWith(Layering.INTERNAL) && Layering.isApi(it.second) } shouldBeGreaterThan 20
        }
        withClue("internal classes and the API classes they may not use") {
            Layering.internalMisuses(deps).shouldBeEmpty()
        }
    }

    test("the core names no class of the bridge, Spark, the notebook kernels or the DSL") {
        withClue("by type") {
            deps.filter { (_, to) -> Layering.OTHER_MODULES.any { to.startsWith("$it.") } }.shouldBeEmpty()
        }
        withClue("by name, in the class files' strings (Class.forName, ServiceLoader by name)") {
            Layering.namesInClassFiles(Path.of("target/classes")).shouldBeEmpty()
        }
    }

    test("the facets and the operation classes of the API hand their work to internal.ndarray") {
        withClue("facet edges read: ${deps.count { Layering.isFacet(it.first) }}") {
            deps.count { Layering.isFacet(it.first) && it.second.startsWith(Layering.INTERNAL + "ndarray.") } shouldBeGreaterThan 20
        }
        withClue("facet or operation class -> internal class doing work there") {
            Layering.facetWork(deps).shouldBeEmpty()
        }
    }

    test("a facet doing work is found and named") {
        val edges = setOf(
            "dev.sharedarrays.Arithmetic" to "dev.sharedarrays.internal.array.Loops",
            "dev.sharedarrays.Arithmetic" to "dev.sharedarrays.internal.ndarray.ArithmeticOps",
            "dev.sharedarrays.Arithmetic" to "dev.sharedarrays.internal.kernel.Op",
            "dev.sharedarrays.ArrayMath" to "dev.sharedarrays.internal.array.ElementMath\$In",
            "dev.sharedarrays.SharedArrays" to "dev.sharedarrays.internal.backend.Backends",
        )
        Layering.facetWork(edges) shouldBe listOf(
            "dev.sharedarrays.Arithmetic -> dev.sharedarrays.internal.array.Loops",
            "dev.sharedarrays.ArrayMath -> dev.sharedarrays.internal.array.ElementMath\$In",
        )
    }

    test("a misuse is found and named") {
        val edges = setOf(
            "dev.sharedarrays.internal.render.Grid" to "dev.sharedarrays.SharedNDArray",
            "dev.sharedarrays.internal.array.Locking" to "dev.sharedarrays.HeldLock",
            "dev.sharedarrays.internal.array.InPlace" to "dev.sharedarrays.ShapeMismatchException",
            "dev.sharedarrays.internal.segment.Names" to "dev.sharedarrays.ArrayHandle\$Shm",
            "dev.sharedarrays.internal.kernel.ElementType" to "dev.sharedarrays.I64",
            "dev.sharedarrays.SharedNDArray" to "dev.sharedarrays.internal.array.Locking",
        )
        Layering.internalMisuses(edges) shouldBe listOf(
            "dev.sharedarrays.internal.array.Locking -> dev.sharedarrays.HeldLock",
            "dev.sharedarrays.internal.render.Grid -> dev.sharedarrays.SharedNDArray",
        )
    }
})

internal object Layering {
    const val INTERNAL = "dev.sharedarrays.internal."
    val OTHER_MODULES = listOf("dev.sharedarrays.flight", "dev.sharedarrays.spark", "dev.sharedarrays.notebook", "dev.sharedarrays.dsl")

    /** API types that are values or options, beside exceptions and DType markers. */
    private val VALUES = setOf("ArrayHandle", "SegmentInfo", "Backend", "Lifetime", "LockStatus", "Slice", "CreateOptions",
        "AttachOptions")

    /** The classes of the public face that declare operations and delegate them. */
    private val FACETS = SharedNDArray::class.java.interfaces.map { it.name }.filter { it.startsWith("dev.sharedarrays.") }.toSet() +
        listOf("dev.sharedarrays.ArrayMath", "dev.sharedarrays.Masks", "dev.sharedarrays.NDArrays")

    /** What a facet may name beside internal.ndarray and enums: the PNG renderer's entry and a timeout's conversion. */
    private val FACET_ALLOWED = setOf("dev.sharedarrays.internal.render.Pictures", "dev.sharedarrays.internal.render.Drawable",
        "dev.sharedarrays.internal.sync.WaitThreads")

    fun isFacet(name: String): Boolean = name.substringBefore('$') in FACETS

    /** "facet -> internal class" for each internal class a facet uses that is not an operation class or an enum. */
    fun facetWork(edges: Set<Pair<String, String>>): List<String> =
        edges.filter { (from, to) ->
            isFacet(from) && to.startsWith(INTERNAL) && !to.startsWith(INTERNAL + "ndarray.") && to !in FACET_ALLOWED &&
                !Class.forName(to, false, Layering::class.java.classLoader).isEnum
        }.map { (from, to) -> "$from -> $to" }.sorted()

    /** A class of the API package itself (not of a subpackage). */
    fun isApi(name: String): Boolean = name.startsWith("dev.sharedarrays.") && name.substringAfter("dev.sharedarrays.").let {
        it.isNotEmpty() && it[0].isUpperCase()
    }

    /** Class-to-class dependencies of the classes under [classes], as jdeps -verbose:class prints them. */
    fun classEdges(classes: Path): Set<Pair<String, String>> = PackageGraph.jdepsEdges("-verbose:class", classes)

    /** "internal class -> API class" for each use of an API class that is not an exception, a value, an option or a marker. */
    fun internalMisuses(edges: Set<Pair<String, String>>): List<String> =
        edges.filter { (from, to) -> from.startsWith(INTERNAL) && isApi(to) && !allowed(to.substringBefore('$')) }
            .map { (from, to) -> "$from -> $to" }.sorted()

    private fun allowed(api: String): Boolean {
        if (api.substringAfterLast('.') in VALUES) {
            return true
        }
        val c = Class.forName(api, false, Layering::class.java.classLoader)
        return Throwable::class.java.isAssignableFrom(c) || DType::class.java.isAssignableFrom(c)
    }

    /** "class file: name" for each name of another module in a class file's bytes (its strings and types). */
    fun namesInClassFiles(classes: Path): List<String> = Files.walk(classes).use { files ->
        files.filter { it.extension == "class" }.toList().flatMap { f ->
            val text = String(f.readBytes(), Charsets.ISO_8859_1)
            OTHER_MODULES.flatMap { listOf(it, it.replace('.', '/')) }.filter { text.contains("$it.") || text.contains("$it/") }
                .map { "${classes.relativize(f)}: $it" }
        }
    }
}
