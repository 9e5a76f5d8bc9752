package io.smetric.audit.hasher;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.List;

/**
 * Builds a conversation's prompts incrementally: messages are rendered and tokenised one by one,
 * full blocks are hashed as soon as they fill, and only the partial last block stays as tokens.
 * The prompt after any message is then the hashed full blocks plus the partial block followed by
 * the generation prompt, so a conversation of n messages costs O(total tokens) to tokenise and
 * hash, not O(n^2). The trailing partial block of a prompt is hashed on its partial content; the
 * next prompt, which extends it, gets a different id for it, as a real prefix cache would.
 */
public final class PromptBuilder {
  private final ChatTemplate template;
  private final ChatTokenizer tokenizer;
  private final HashKey key;
  private final int blockSize;
  private final IntArrayList genPrompt;
  private final byte[] scratch;

  private final LongArrayList fullBlocks;
  private final IntArrayList pending;
  private long chain;
  private long tokens;
  private int messages;

  // reused per message
  private final IntArrayList msgTokens = new IntArrayList();
  private final TokenSink sink = new TokenSink();

  public PromptBuilder(ChatTemplate template, ChatTokenizer tokenizer, HashKey key, int blockSize) {
    this.template = template;
    this.tokenizer = tokenizer;
    this.key = key;
    this.blockSize = blockSize;
    this.scratch = new byte[8 + 4 * blockSize];
    this.fullBlocks = new LongArrayList();
    this.pending = new IntArrayList(blockSize);
    this.genPrompt = new IntArrayList();
    sink.into(genPrompt);
    template.generationPrompt(sink);
    sink.flush();
  }

  private PromptBuilder(PromptBuilder o) {
    this.template = o.template;
    this.tokenizer = o.tokenizer;
    this.key = o.key;
    this.blockSize = o.blockSize;
    this.scratch = new byte[o.scratch.length];
    this.genPrompt = o.genPrompt;
    this.fullBlocks = new LongArrayList(o.fullBlocks);
    this.pending = new IntArrayList(o.pending);
    this.chain = o.chain;
    this.tokens = o.tokens;
    this.messages = o.messages;
  }

  /** An independent copy (the OpenAI reader keeps one per session to extend the next request). */
  public PromptBuilder copy() {
    return new PromptBuilder(this);
  }

  /** Appends a message; {@code tools} non-empty only for the first message of a conversation. */
  public void append(ChatMessage m, List<String> tools) {
    msgTokens.clear();
    sink.into(msgTokens);
    template.message(m, tools, sink);
    sink.flush();
    appendTokens(msgTokens);
    messages++;
  }

  /** Appends the tools section alone (tools but no messages before the first request). */
  public void appendToolsOnly(List<String> tools) {
    msgTokens.clear();
    sink.into(msgTokens);
    template.toolsOnly(tools, sink);
    sink.flush();
    appendTokens(msgTokens);
  }

  /** Tokens the model generates for this assistant message (body and end marker). */
  public int completionTokens(ChatMessage assistant) {
    msgTokens.clear();
    sink.into(msgTokens);
    template.completion(assistant, sink);
    sink.flush();
    return msgTokens.size();
  }

  private void appendTokens(IntArrayList t) {
    int[] a = t.elements();
    int n = t.size();
    tokens += n;
    int i = 0;
    // fill the partial block first, then hash whole blocks straight from the message tokens
    while (i < n && !pending.isEmpty()) {
      pending.add(a[i++]);
      if (pending.size() == blockSize) {
        chain = key.block(chain, pending.elements(), 0, blockSize, scratch);
        fullBlocks.add(chain);
        pending.clear();
      }
    }
    for (; i + blockSize <= n; i += blockSize) {
      chain = key.block(chain, a, i, blockSize, scratch);
      fullBlocks.add(chain);
    }
    for (; i < n; i++) pending.add(a[i]);
  }

  /** Input tokens of the prompt "history so far + generation prompt". */
  public int promptTokens() {
    long n = tokens + genPrompt.size();
    if (n > Integer.MAX_VALUE) throw new IllegalStateException("prompt longer than 2^31 tokens");
    return (int) n;
  }

  /** Block hashes of the prompt "history so far + generation prompt". */
  public long[] promptBlocks() {
    int tail = pending.size() + genPrompt.size();
    int tailBlocks = (tail + blockSize - 1) / blockSize;
    long[] out = new long[fullBlocks.size() + tailBlocks];
    fullBlocks.getElements(0, out, 0, fullBlocks.size());
    int[] t = new int[tail];
    pending.getElements(0, t, 0, pending.size());
    genPrompt.getElements(0, t, pending.size(), genPrompt.size());
    long c = chain;
    int k = fullBlocks.size();
    for (int i = 0; i < tail; i += blockSize) {
      c = key.block(c, t, i, Math.min(blockSize, tail - i), scratch);
      out[k++] = c;
    }
    return out;
  }

  public int messages() {
    return messages;
  }

  /** Total tokens appended so far (without the generation prompt). */
  public long historyTokens() {
    return tokens;
  }

  /**
   * Collects a template's output as token ids: text runs are joined until the next special token
   * and encoded as one piece, as a tokenizer that splits the whole prompt at special tokens does.
   */
  private final class TokenSink implements ChatTemplate.Sink {
    private final StringBuilder text = new StringBuilder();
    private IntArrayList out;

    void into(IntArrayList o) {
      this.out = o;
    }

    @Override
    public void text(String s) {
      text.append(s);
    }

    @Override
    public void special(String token) {
      int id = tokenizer.special(token);
      if (id < 0) {
        text.append(token); // tokenizer without this marker: it is ordinary text (documented)
        return;
      }
      flush();
      out.add(id);
    }

    void flush() {
      if (text.length() > 0) {
        tokenizer.encodeText(text.toString(), out);
        text.setLength(0);
      }
    }
  }
}
