package dev.sharedarrays.notebook.internal;

import dev.sharedarrays.SharedNDArray;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.JupyterIO;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;
import org.dflib.jjava.jupyter.kernel.util.TextColor;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.MessageType;
import org.dflib.jjava.jupyter.messages.publish.PublishError;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteInput;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteResult;
import org.dflib.jjava.jupyter.messages.reply.ErrorReply;
import org.dflib.jjava.jupyter.messages.reply.ExecuteReply;
import org.dflib.jjava.jupyter.messages.request.ExecuteRequest;
import org.zeromq.ZMQ;

/**
 * What the Java and the Kotlin kernel share: a cell's value shown as {@link ArrayDisplay} shows
 * arrays (the same renderers in both kernels), nothing for a Unit or void cell; a failed cell
 * reported as its exception's type, message and stack trimmed to the cell ({@link #describe});
 * and, as ipykernel does, a failed or interrupted cell aborts the cells queued behind it (their
 * execute requests are answered "aborted" unrun: "Run All" stops at the first error).
 */
public abstract class CellKernel extends BaseKernel {
    private final CellIO cellIo;
    /** True after a failed cell while requests that were queued behind it are answered "aborted". */
    private boolean aborting;

    /** A failed cell as the user sees it: the exception's type and message, and the lines to show. */
    public record Failure(String type, String message, List<String> traceback) {
    }

    protected CellKernel(String name, String version, LanguageInfo language) {
        this(name, version, language, new CellIO());
    }

    private CellKernel(String name, String version, LanguageInfo language, CellIO io) {
        super(name, version, language, List.of(), null, io, new CommManager(), new Renderer(), null, new MagicsRegistry(), false,
                new StringStyler.Builder().addPrimaryStyle(TextColor.BOLD_RESET_FG).addSecondaryStyle(TextColor.BOLD_RED_FG)
                        .addHighlightStyle(TextColor.BOLD_RESET_FG).build());
        this.cellIo = io;
    }

    /** How a cell's exception (from {@link #evalRaw}) is shown. */
    protected abstract Failure describe(Exception e);

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

    @Override
    public List<String> formatError(Throwable e) {
        return e instanceof Exception x ? describe(x).traceback() : List.of(e.toString());
    }

    @Override
    protected synchronized void handleExecuteRequest(ShellReplyEnvironment env, Message<ExecuteRequest> request) {
        commManager.setMessageContext(request);
        ExecuteRequest r = request.getContent();
        env.setBusyDeferIdle();
        if (aborting) {
            // queued behind a failed cell: not run, as ipykernel answers it
            env.defer().reply(aborted(env));
            aborting = queued(env);
            return;
        }
        int count = executionCount.getAndIncrement();
        env.publish(new PublishExecuteInput(r.getCode(), count));
        replaceOutputStreams(env);
        cellIo.attach(env, r.isStdinEnabled());
        try {
            DisplayData out = eval(r.getCode());
            if (out != null) {
                env.publish(new PublishExecuteResult(count, out));
            }
            env.defer().reply(new ExecuteReply(count, Map.of()));
        } catch (Exception e) {
            Failure f = describe(e);
            ErrorReply reply = new ErrorReply(f.type(), f.message(), f.traceback());
            reply.setExecutionCount(count);
            env.publish(new PublishError(f.type(), f.message(), f.traceback()));
            env.defer().replyError(ExecuteReply.MESSAGE_TYPE.error(), reply);
            // what the client sent before it saw this error waits in the shell socket now
            aborting = r.shouldStopOnError() && queued(env);
        }
    }

    /** True if another request waits in the shell socket (this loop's own thread reads it). */
    private static boolean queued(ShellReplyEnvironment env) {
        return (env.getShell().getEvents() & ZMQ.Poller.POLLIN) != 0;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Message<?> aborted(ShellReplyEnvironment env) {
        return new Message(env.getContext(), (MessageType) ExecuteReply.MESSAGE_TYPE, Map.of("status", "aborted"));
    }

    /** jjava's IO, whose attachment to a request is protected: this kernel answers execute requests itself. */
    private static final class CellIO extends JupyterIO {
        CellIO() {
            super(StandardCharsets.UTF_8);
        }

        void attach(ShellReplyEnvironment env, boolean stdin) {
            setEnv(env);
            env.defer(() -> retractEnv(env));
            setJupyterInEnabled(stdin);
        }
    }
}
