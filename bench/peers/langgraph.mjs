// LangGraph.js: the prebuilt ReAct agent over ChatOpenAI, pointed at the mock server.
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { TASK, calculator, currentTime, measure, serverUrl } from "./common.mjs";

const llm = new ChatOpenAI({
  model: "mock",
  apiKey: "not-used",
  maxRetries: 0,
  configuration: { baseURL: serverUrl() },
});
const tools = [
  tool(async (args) => calculator(args), {
    name: "calculator",
    description: "Evaluates an arithmetic expression.",
    schema: z.object({ expression: z.string() }),
  }),
  tool(async () => currentTime(), {
    name: "current_time",
    description: "The current date and time.",
    schema: z.object({}),
  }),
];
const agent = createReactAgent({ llm, tools });

await measure("langgraph", async () => {
  const out = await agent.invoke({ messages: [{ role: "user", content: TASK }] });
  if (!String(out.messages.at(-1).content).includes("391")) throw new Error("unexpected answer");
}, { runs: Number(process.env.RUNS || 200) });
