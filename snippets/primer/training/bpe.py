"""Byte-pair encoding learned on the corpus: the merges of a plain learner against the
`tokenizers` library's BPE trainer, the first merges, the token count, and one line of Hamlet
in these tokens and in MiniLM's WordPiece."""
from esm import check_equal, glue, minilm, table, wordpieces
from esm.tokenizer import VOCAB_SIZE, bpe_encode, data, reference_bpe, visible

D = data()
text, alphabet, merges, counts = D.text, D.alphabet, D.merges, D.counts
V = VOCAB_SIZE
print(glue("V", V), glue("n_alpha", len(alphabet)), glue("n_merges", len(merges)), glue("n_tokens", len(D.ids), ","),
      glue("chars_per_token", len(text) / len(D.ids), ".2f"))


def shown(s):
    return f"`{visible(s)}`"


print(table(["rank", "pair merged", "new token", "count"],
            [[r + 1, f"{shown(a)} + {shown(b)}", shown(a + b), f"{c:,}"]
             for r, ((a, b), c) in enumerate(zip(merges[:10], counts[:10]))]))
print(glue("first_count", counts[0], ","))

# [bpe-merge]: the same merges, in the same order, from Hugging Face's tokenizers (Rust) trained on
# the same text with the same pre-tokenisation and vocabulary size.
ref_merges, ref_tok = reference_bpe(text, V)
print(check_equal(f"merges learned here equal to the tokenizers library's BpeTrainer's, in the same place "
                  f"(of {len(merges)} here, {len(ref_merges)} there)", sum(a == b for a, b in zip(merges, ref_merges)),
                  len(ref_merges), eq="bpe-merge"))
# The first merge's count by another route: a space followed by 't' can only be the start of a
# piece ' t...', so the pair (' ', 't') occurs exactly as often as the substring " t" in the text.
print(check_equal(f"count of the first merge {shown(''.join(merges[0]))} = occurrences of that substring (str.count)",
                  counts[0], text.count("".join(merges[0]))))
# Encoding: the merges applied in order give the tokens the library's tokenizer gives, and decode back.
tokens = [(list(alphabet) + [a + b for a, b in merges])[i] for i in D.ids]
ref_tokens = ref_tok.encode(text).tokens
print(check_equal(f"the corpus in tokens = the library tokenizer's encoding of it, token for token ({len(tokens):,} here)",
                  len(ref_tokens) == len(tokens) and sum(a == b for a, b in zip(tokens, ref_tokens)), len(tokens)))
print(check_equal("the tokens put back together = the corpus, character for character", "".join(tokens) == text, True))

line = "To be, or not to be: that is the question:"
assert line in text                                       # a line of Hamlet, as the corpus has it
ours = ["".join((list(alphabet) + [a + b for a, b in merges])[i]) for i in bpe_encode(line, alphabet, merges)]
wp = wordpieces(line)
print(glue("n_ours", len(ours)), glue("n_wp", len(wp)))
print(table(["tokenizer", "tokens", "the line in tokens"],
            [[f"BPE learned here ($\\lvert\\mathcal V\\rvert$ = {V})", len(ours), " ".join(shown(t) for t in ours)],
             [f"MiniLM's WordPiece ({minilm().tokenizer.get_vocab_size():,})", len(wp), " ".join(shown(t) for t in wp)]]))
