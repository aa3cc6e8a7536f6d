// OpenAI Agents JS: an Agent with two function tools, Chat Completions API,
// tracing off, pointed at the mock server.
import OpenAI from "openai";
import { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from "@openai/agents";
import { z } from "zod";
import { TASK, calculator, currentTime, measure, serverUrl } from "./common.mjs";

setDefaultOpenAIClient(new OpenAI({ baseURL: serverUrl(), apiKey: "not-used", maxRetries: 0 }));
setOpenAIAPI("chat_completions");
setTracingDisabled(true);

const agent = new Agent({
  name: "assistant",
  instructions: "You are a careful assistant that can call tools.",
  model: "mock",
  tools: [
    tool({
      name: "calculator",
      description: "Evaluates an arithmetic expression.",
      parameters: z.object({ expression: z.string() }),
      execute: async (args) => calculator(args),
    }),
    tool({
      name: "current_time",
      description: "The current date and time.",
      parameters: z.object({}),
      execute: async () => currentTime(),
    }),
  ],
});

await measure("openai-agents", async () => {
  const result = await run(agent, TASK);
  if (!String(result.finalOutput).includes("391")) throw new Error("unexpected answer");
}, { runs: Number(process.env.RUNS || 200) });
