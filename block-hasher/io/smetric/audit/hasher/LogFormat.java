package io.smetric.audit.hasher;

import io.smetric.audit.common.UsageException;

/** The raw log formats the block-hasher reads ({@code --log-format}). */
public enum LogFormat {
  /** One chat-completions request per JSONL line (or JSON array element): {@code messages}, {@code tools}, metadata. */
  OPENAI("openai"),
  /** ShareGPT conversations: {@code conversations[{from, value}]}, optional {@code system}, {@code tools}. */
  SHAREGPT("sharegpt"),
  /** SWE-agent trajectories: an object whose {@code history} is an OpenAI-style message list. */
  SWE_AGENT("swe-agent"),
  /** Decide per file from the first record's keys: history, conversations, messages/request/body. */
  AUTO("auto");

  public final String cliName;

  LogFormat(String cliName) {
    this.cliName = cliName;
  }

  public static LogFormat parse(String s) {
    for (LogFormat f : values()) if (f.cliName.equals(s)) return f;
    throw new UsageException("unknown --log-format '" + s + "': use openai, sharegpt, swe-agent or auto");
  }
}
