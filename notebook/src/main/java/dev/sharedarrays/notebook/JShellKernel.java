package dev.sharedarrays.notebook;

import dev.sharedarrays.SharedNDArray;
import dev.sharedarrays.notebook.internal.ArrayDisplay;
import dev.sharedarrays.notebook.internal.CapturingExecutionControl;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;
import jdk.jshell.VarSnippet;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.JupyterIO;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;
import org.dflib.jjava.jupyter.kernel.util.TextColor;

/**
 * A Java kernel: each cell is split into JShell snippets and run in this JVM; the value of a cell
 * that ends in an expression is its result, shown as text, and an array also as a picture
 * ({@link ArrayDisplay}). An interrupt stops the running cell (JShell's stop: a check on every
 * loop and method entry of the cell's code, and a thread interrupt for sleeps and waits).
 */
final class JShellKernel extends BaseKernel {
    /** What every cell can use without imports. */
    static final List<String> IMPORTS = List.of(
            "import dev.sharedarrays.*;",
            "import java.nio.file.*;",
            "import java.time.Duration;",
            "import static dev.sharedarrays.notebook.Notebook.*;");

    private final JShell shell;
    private volatile boolean interrupted;

    JShellKernel(String version) {
        super("shared-arrays Java", version,
                new LanguageInfo.Builder("java").version(Runtime.version().toString()).mimetype("text/x-java-source")
                        .fileExtension(".jshell").pygments("java").codemirror("text/x-java").build(),
                List.of(), null, new JupyterIO(StandardCharsets.UTF_8), new CommManager(), new Renderer(), null,
                new MagicsRegistry(), false,
                new StringStyler.Builder().addPrimaryStyle(TextColor.BOLD_RESET_FG)
                        .addSecondaryStyle(TextColor.BOLD_RED_FG).addHighlightStyle(TextColor.BOLD_RESET_FG).build());
        shell = JShell.builder()
                .executionEngine(new CapturingExecutionControl.Provider(), Map.of())
                .build();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                shell.addToClasspath(entry);
            }
        }
        for (String i : IMPORTS) {
            shell.eval(i);
        }
    }

    @Override
    public DisplayData eval(String source) {
        Object v = evalRaw(source);
        if (v == null) {
            return null;
        }
        if (v instanceof DisplayData d) {
            return d;
        }
        if (v instanceof SharedNDArray<?> a) {
            return ArrayDisplay.of(a);
        }
        return getRenderer().render(v);
    }

    /** Runs every snippet of the cell in turn; the value of the last, if it is an expression. */
    @Override
    public Object evalRaw(String source) {
        interrupted = false;
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String rest = source;
        Object value = null;
        while (!rest.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
            if (info.completeness() == SourceCodeAnalysis.Completeness.DEFINITELY_INCOMPLETE) {
                throw new IllegalArgumentException("incomplete code at the end of the cell: " + rest.strip());
            }
            String snippet = info.completeness() == SourceCodeAnalysis.Completeness.EMPTY ? "" : info.source();
            if (info.remaining().length() >= rest.length() && (snippet == null || snippet.isBlank())) {
                break; // nothing consumed: only comments or blanks are left
            }
            rest = info.remaining();
            if (snippet == null || snippet.isBlank()) {
                if (info.completeness() == SourceCodeAnalysis.Completeness.UNKNOWN) {
                    throw new IllegalArgumentException(diagnostics(rest, shell.eval(rest)));
                }
                continue;
            }
            value = run(snippet);
        }
        return value;
    }

    private Object run(String snippet) {
        List<SnippetEvent> events = shell.eval(snippet);
        Object value = null;
        for (SnippetEvent e : events) {
            if (e.causeSnippet() != null) {
                continue; // an update of a dependent snippet, not this one
            }
            if (e.status() == Snippet.Status.REJECTED) {
                throw new IllegalArgumentException(diagnostics(snippet, events));
            }
            if (e.exception() instanceof UnresolvedReferenceException u) {
                throw new IllegalStateException("unresolved: " + u.getSnippet().source());
            }
            if (e.exception() != null) {
                throw new CellException(e.exception());
            }
            if (interrupted) {
                throw new CellException("the cell was interrupted");
            }
            Snippet s = e.snippet();
            boolean expression = s.kind() == Snippet.Kind.EXPRESSION
                    || (s instanceof VarSnippet && s.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND);
            value = expression && e.value() != null ? CapturingExecutionControl.lastValue() : null;
        }
        return value;
    }

    private String diagnostics(String snippet, List<SnippetEvent> events) {
        List<String> lines = new ArrayList<>();
        for (SnippetEvent e : events) {
            for (Diag d : shell.diagnostics(e.snippet()).collect(Collectors.toList())) {
                if (d.isError()) {
                    lines.add(d.getMessage(null) + " (at: " + excerpt(snippet, (int) d.getStartPosition()) + ")");
                }
            }
        }
        return lines.isEmpty() ? "cannot compile: " + snippet.strip() : String.join("\n", lines);
    }

    private static String excerpt(String s, int at) {
        int from = Math.max(0, Math.min(at, s.length()));
        return s.substring(from, Math.min(s.length(), from + 40)).strip();
    }

    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        return null;
    }

    @Override
    public ReplacementOptions complete(String code, int at) {
        int[] anchor = new int[1];
        List<String> options = shell.sourceCodeAnalysis().completionSuggestions(code, at, anchor).stream()
                .map(SourceCodeAnalysis.Suggestion::continuation).distinct().collect(Collectors.toList());
        return options.isEmpty() ? null : new ReplacementOptions(options, anchor[0], at);
    }

    @Override
    public String isComplete(String code) {
        return switch (shell.sourceCodeAnalysis().analyzeCompletion(code).completeness()) {
            case DEFINITELY_INCOMPLETE, CONSIDERED_INCOMPLETE -> "";
            case UNKNOWN -> IS_COMPLETE_BAD;
            default -> IS_COMPLETE_YES;
        };
    }

    @Override
    public void interrupt() {
        interrupted = true;
        shell.stop();
    }

    @Override
    public List<String> formatError(Throwable e) {
        List<String> lines = new ArrayList<>();
        if (e instanceof CellException c && c.getCause() instanceof EvalException ee) {
            lines.add(ee.getExceptionClassName() + ": " + ee.getMessage());
            for (StackTraceElement t : ee.getStackTrace()) {
                if (t.getClassName().startsWith("REPL.") || t.getClassName().startsWith("dev.sharedarrays")) {
                    lines.add("    at " + t);
                }
            }
            return lines;
        }
        lines.add(e.getMessage() == null ? e.toString() : e.getMessage());
        return lines;
    }

    /** A cell that threw, or was interrupted. */
    static final class CellException extends RuntimeException {
        CellException(jdk.jshell.JShellException cause) {
            super((cause instanceof EvalException ee ? ee.getExceptionClassName() : cause.getClass().getName()) + ": "
                    + cause.getMessage(), cause);
        }

        CellException(String message) {
            super(message);
        }
    }
}
