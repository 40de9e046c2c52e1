package dev.sharedarrays

import io.kotest.assertions.withClue
import io.kotest.core.spec.style.FunSpec
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldContain
import io.kotest.matchers.ints.shouldBeGreaterThan
import io.kotest.matchers.shouldBe
import java.lang.reflect.Modifier
import java.math.BigInteger
import java.nio.file.Files
import java.nio.file.Path

/**
 * docs/PROTOCOL.md against the code: every row of a table with `constant` and `value` columns names
 * a Java constant as `Class.NAME` and gives its value; each must equal the constant, and every public
 * numeric constant of the layout classes must have a row, so that no word changes or appears
 * without the document (python/tests/test_protocol_doc.py holds the Python package to the same rows).
 */
class ProtocolDocTest : FunSpec({
    val doc = ProtocolDoc.text()

    test("every constant row of docs/PROTOCOL.md has the value of its Java constant") {
        val rows = ProtocolDoc.rows(doc)
        withClue("rows read from the document (a parser that reads nothing would pass vacuously)") {
            rows.size shouldBeGreaterThan 80
        }
        ProtocolDoc.mismatches(rows).shouldBeEmpty()
    }

    test("every public numeric constant of the layout classes is in docs/PROTOCOL.md") {
        ProtocolDoc.undocumented(ProtocolDoc.rows(doc)).shouldBeEmpty()
    }

    test("the element type table of docs/PROTOCOL.md is the code's") {
        val documented = ProtocolDoc.elementTypes(doc)
        val actual = DType.all().map { listOf(it.code().toString(), it.name(), it.descr(), it.itemSize().toString()) }
        documented.map { it.take(4) }.map { listOf(it[0], it[1].uppercase(), it[2], it[3]) } shouldBe
            actual.map { listOf(it[0], it[1].uppercase(), it[2], it[3]) }
    }

    test("a wrong value, an unknown class or constant and a missing constant are reported") {
        val wrong = """
            | constant | value | field |
            |---|---|---|
            | `SegmentDescriptor.WRITER_OFFSET` | 161 | writer |
            | `SegmentDescriptor.NO_SUCH_OFFSET` | 1 | nothing |
            | `NoSuchDescriptor.X_OFFSET` | 1 | nothing |
            | `QueueDescriptor.LEFT` | 0x8000000000000000 | right: bit 63 |
            | — | 148 | reserved |
        """.trimIndent()
        val rows = ProtocolDoc.rows(wrong)
        rows.size shouldBe 4
        val problems = ProtocolDoc.mismatches(rows)
        problems.size shouldBe 3
        problems shouldContain "SegmentDescriptor.WRITER_OFFSET: the document says 161, the code has 160"
        ProtocolDoc.undocumented(rows) shouldContain "SegmentDescriptor.READER_SEQ_OFFSET = 172"
    }

    test("a value that is not a number is reported, not skipped") {
        val rows = ProtocolDoc.rows("| constant | value |\n|---|---|\n| `SegmentDescriptor.PAGE` | four K |\n")
        ProtocolDoc.mismatches(rows) shouldBe listOf("SegmentDescriptor.PAGE: value 'four K' is not a decimal or 0x number")
    }
})

/** Reads the machine-checked tables of docs/PROTOCOL.md. */
internal object ProtocolDoc {
    /** The classes whose constants the document's rows name, by their simple names. */
    val CLASSES: Map<String, String> = mapOf(
        "SegmentDescriptor" to "dev.sharedarrays.internal.segment.SegmentDescriptor",
        "BarrierDescriptor" to "dev.sharedarrays.internal.sync.BarrierDescriptor",
        "QueueDescriptor" to "dev.sharedarrays.internal.sync.QueueDescriptor",
        "PoolProtocol" to "dev.sharedarrays.internal.sync.PoolProtocol",
    )

    private val TWO_64: BigInteger = BigInteger.ONE.shiftLeft(64)
    private val CONSTANT = Regex("`([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)`")
    private val NUMBER = Regex("-?[0-9]+|0[xX][0-9a-fA-F]+")

    /** One row: the constant it names and its value cell as written. */
    data class Row(val line: Int, val className: String, val name: String, val value: String)

    /** docs/PROTOCOL.md, found from the working directory upwards (surefire runs in library/). */
    fun text(): String {
        var dir: Path? = Path.of("").toAbsolutePath()
        while (dir != null) {
            val doc = dir.resolve("docs").resolve("PROTOCOL.md")
            if (Files.isRegularFile(doc)) {
                return Files.readString(doc)
            }
            dir = dir.parent
        }
        error("docs/PROTOCOL.md not found above ${Path.of("").toAbsolutePath()}")
    }

    /** The cells of a table line: split on '|' not escaped as '\|', trimmed, escapes undone. */
    fun cells(line: String): List<String> {
        val inner = line.trim().removePrefix("|").let { if (it.endsWith("|") && !it.endsWith("\\|")) it.dropLast(1) else it }
        return inner.split(Regex("(?<!\\\\)\\|")).map { it.trim().replace("\\|", "|") }
    }

    /** The tables of the text: each a list of (line number, cells), the header first, the separator dropped. */
    fun tables(text: String): List<List<Pair<Int, List<String>>>> {
        val out = mutableListOf<List<Pair<Int, List<String>>>>()
        var current = mutableListOf<Pair<Int, List<String>>>()
        text.lines().forEachIndexed { i, raw ->
            if (raw.trimStart().startsWith("|")) {
                val c = cells(raw)
                if (!c.all { it.matches(Regex(":?-+:?")) }) {
                    current.add(i + 1 to c)
                }
            } else if (current.isNotEmpty()) {
                out.add(current)
                current = mutableListOf()
            }
        }
        if (current.isNotEmpty()) {
            out.add(current)
        }
        return out
    }

    /**
     * The rows of the tables with `constant` and `value` columns whose constant cell names one
     * (`Class.NAME` in backticks); rows with `—` there name a word without a constant of its own.
     */
    fun rows(text: String): List<Row> = tables(text).flatMap { table ->
        val header = table.first().second.map { it.lowercase() }
        val constant = header.indexOf("constant")
        val value = header.indexOf("value")
        if (constant < 0 || value < 0) {
            emptyList()
        } else {
            table.drop(1).mapNotNull { (line, c) ->
                val m = CONSTANT.matchEntire(c.getOrElse(constant) { "" })
                if (m == null) {
                    null
                } else {
                    Row(line, m.groupValues[1], m.groupValues[2], c.getOrElse(value) { "" })
                }
            }
        }
    }

    /** A value cell as a number (backticks, spaces and '_' ignored), or null if it is none. */
    fun parse(value: String): BigInteger? {
        val v = value.replace("`", "").replace("_", "").trim()
        if (!NUMBER.matches(v)) {
            return null
        }
        return if (v.startsWith("0x") || v.startsWith("0X")) BigInteger(v.substring(2), 16) else BigInteger(v)
    }

    /** A 64-bit word's value as the document writes it: negative longs as their unsigned value. */
    private fun unsigned(n: BigInteger): BigInteger = if (n.signum() < 0) n.add(TWO_64) else n

    private fun constants(className: String): Map<String, BigInteger>? {
        val cls = CLASSES[className]?.let { Class.forName(it) } ?: return null
        return cls.declaredFields
            .filter { Modifier.isPublic(it.modifiers) && Modifier.isStatic(it.modifiers) && Modifier.isFinal(it.modifiers) }
            .filter { it.type == Int::class.javaPrimitiveType || it.type == Long::class.javaPrimitiveType }
            .associate { it.name to BigInteger.valueOf((it.get(null) as Number).toLong()) }
    }

    /** What is wrong with the rows, one message each; empty if every row matches the code. */
    fun mismatches(rows: List<Row>): List<String> = rows.mapNotNull { r ->
        val id = "${r.className}.${r.name}"
        val constants = constants(r.className)
        val documented = parse(r.value)
        when {
            constants == null -> "$id (line ${r.line}): no such class; known: ${CLASSES.keys.joinToString()}"
            r.name !in constants -> "$id (line ${r.line}): ${r.className} has no public static final int or long ${r.name}"
            documented == null -> "$id: value '${r.value}' is not a decimal or 0x number"
            unsigned(documented) != unsigned(constants.getValue(r.name)) ->
                "$id: the document says ${r.value}, the code has ${constants.getValue(r.name)}"
            else -> null
        }
    }

    /** The public numeric constants of the layout classes that no row names, as `Class.NAME = value`. */
    fun undocumented(rows: List<Row>): List<String> {
        val named = rows.map { "${it.className}.${it.name}" }.toSet()
        return CLASSES.keys.flatMap { c ->
            constants(c)!!.filterKeys { "$c.$it" !in named }.map { (name, v) -> "$c.$name = $v" }
        }.sorted()
    }

    /** The rows of the element type table (columns code, name, numpy descr, item size). */
    fun elementTypes(text: String): List<List<String>> {
        val table = tables(text).single { t ->
            t.first().second.map { it.lowercase() }.take(4) == listOf("code", "name", "numpy descr", "item size")
        }
        return table.drop(1).map { (_, c) ->
            listOf(c[0], c[1], c[2].replace("`", ""), c[3].substringBefore(" "))
        }
    }
}
