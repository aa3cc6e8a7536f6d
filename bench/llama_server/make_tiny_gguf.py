#!/usr/bin/python3
# Writes a tiny random-weight llama-architecture GGUF (SPM-style "llama" tokenizer,
# ~380 tokens, 2 layers, n_embd 64) with llama.cpp's own gguf-py.
# usage: make_tiny_gguf.py <llama.cpp source dir> <out.gguf> [corpus.txt [n_words]]
import sys
sys.path.insert(0, sys.argv[1] + "/gguf-py")
import numpy as np
import gguf

out = sys.argv[2]
rng = np.random.default_rng(1234)

# --- vocabulary -------------------------------------------------------------
tokens, scores, types = [], [], []
def add(text, score, ttype):
    tokens.append(text.encode("utf-8")); scores.append(float(score)); types.append(int(ttype))
T = gguf.TokenType
add("<unk>", 0, T.UNKNOWN)           # 0
add("<s>", 0, T.CONTROL)             # 1
add("</s>", 0, T.CONTROL)            # 2
add("<|im_start|>", 0, T.CONTROL)    # 3
add("<|im_end|>", 0, T.CONTROL)      # 4
for b in range(256):
    add("<0x%02X>" % b, 0, T.BYTE)
add("\u2581", -1, T.NORMAL)
for c in range(0x21, 0x7f):
    add(chr(c), -2, T.NORMAL)
words = ["the", "patient", "pain", "chest", "warfarin", "blood", "risk", "tool", "call", "name",
         "json", "answer", "triage", "urgent", "hello", "and", "of", "to", "in", "is", "with",
         "for", "on", "no", "yes", "he", "she", "history", "emergency", "dyspnea", "embolism"]
for i, w in enumerate(words):
    add("\u2581" + w, -3 - i * 0.01, T.NORMAL)
for a in "etaoinsrhl":
    for b in "etaoinsrhl":
        add(a + b, -4, T.NORMAL)
# Optional corpus (argv[3]): every prefix of "▁word" for its most frequent
# words, so SentencePiece-style merges reach whole words (~3-4 bytes/token, like
# a real tokenizer) instead of ~1.5 bytes/token.
if len(sys.argv) > 3:
    import collections, re
    text = open(sys.argv[3], encoding="utf-8", errors="replace").read()
    counts = collections.Counter(re.findall(r"[A-Za-z]{2,}", text))
    seen = set(t.decode() for t in tokens)
    for word, _ in counts.most_common(int(sys.argv[4]) if len(sys.argv) > 4 else 600):
        for k in range(2, len(word) + 2):
            for piece in ("\u2581" + word[:k - 1], word[:k]):
                if len(piece) > 1 and piece not in seen:
                    seen.add(piece)
                    add(piece, -10 + len(piece) * 0.5, T.NORMAL)
    # JSON punctuation runs, by prefixes too
    for run in ['":\u2581"', '",\u2581"', '{"', '"}', '},', '"]', '["', '":\u2581{', '\u2581\u2581\u2581\u2581', '},\u2581{']:
        for k in range(2, len(run) + 1):
            if run[:k] not in seen:
                seen.add(run[:k])
                add(run[:k], -10 + k * 0.5, T.NORMAL)
n_vocab = len(tokens)

# --- hyper-parameters -------------------------------------------------------
n_embd, n_layer, n_head, n_head_kv, n_ff, n_ctx_train = 64, 2, 4, 4, 128, 32768
head_dim = n_embd // n_head

w = gguf.GGUFWriter(out, "llama")
w.add_name("medreact-tiny-random")
w.add_context_length(n_ctx_train)
w.add_embedding_length(n_embd)
w.add_block_count(n_layer)
w.add_feed_forward_length(n_ff)
w.add_head_count(n_head)
w.add_head_count_kv(n_head_kv)
w.add_layer_norm_rms_eps(1e-5)
w.add_rope_dimension_count(head_dim)
w.add_rope_freq_base(10000.0)
w.add_vocab_size(n_vocab)
w.add_file_type(gguf.LlamaFileType.ALL_F32)

w.add_tokenizer_model("llama")
w.add_tokenizer_pre("default")
w.add_token_list(tokens)
w.add_token_scores(scores)
w.add_token_types(types)
w.add_bos_token_id(1)
w.add_eos_token_id(4)     # <|im_end|> ends a chatml turn
w.add_unk_token_id(0)
w.add_add_bos_token(True)
w.add_add_eos_token(False)
# chatml; tools listed in the system turn so --jinja accepts a "tools" field
w.add_chat_template(
    "{%- if tools %}<|im_start|>system\n"
    "{%- if messages[0]['role'] == 'system' %}{{ messages[0]['content'] }}\n{% endif %}"
    "# Tools\n<tools>\n{%- for tool in tools %}{{ tool | tojson }}\n{%- endfor %}</tools>\n"
    "Call a tool as <tool_call>{\"name\": ..., \"arguments\": ...}</tool_call><|im_end|>\n"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if not (tools and loop.first and message['role'] == 'system') %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] if message['content'] is string else '' }}"
    "{%- if message.tool_calls %}{%- for tc in message.tool_calls %}\n<tool_call>{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments if tc.function.arguments is string else tc.function.arguments | tojson }}}</tool_call>{%- endfor %}{%- endif %}"
    "<|im_end|>\n"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}")

# --- random weights ----------------------------------------------------------
def rnd(*shape, scale=0.02):
    return (rng.standard_normal(shape) * scale).astype(np.float32)
w.add_tensor("token_embd.weight", rnd(n_vocab, n_embd, scale=0.5))
w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
out_w = rnd(n_vocab, n_embd, scale=0.5)
w.add_tensor("output.weight", out_w)
for i in range(n_layer):
    p = f"blk.{i}."
    w.add_tensor(p + "attn_norm.weight", np.ones(n_embd, dtype=np.float32))
    w.add_tensor(p + "attn_q.weight", rnd(n_head * head_dim, n_embd))
    w.add_tensor(p + "attn_k.weight", rnd(n_head_kv * head_dim, n_embd))
    w.add_tensor(p + "attn_v.weight", rnd(n_head_kv * head_dim, n_embd))
    w.add_tensor(p + "attn_output.weight", rnd(n_embd, n_head * head_dim))
    w.add_tensor(p + "ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
    w.add_tensor(p + "ffn_gate.weight", rnd(n_ff, n_embd))
    w.add_tensor(p + "ffn_up.weight", rnd(n_ff, n_embd))
    w.add_tensor(p + "ffn_down.weight", rnd(n_embd, n_ff))

w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print(f"wrote {out}: vocab {n_vocab}, {n_layer} layers, n_embd {n_embd}")
