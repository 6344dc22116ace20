"""Deng Cai's Reuters terms against tokenisations of the same ModApte documents.

Cai's Reuters21578.mat holds counts without a vocabulary; its document frequencies (df) are
the profile to match. The raw collection's ModApte single-label documents (the same 8293
documents, `reuters21578_sgml`) are tokenised by scikit-learn's CountVectorizer (lower case,
terms in at least two documents) under a few token patterns and stop lists; per variant:
terms, tokens per document, and the 12 largest df. Writes tokens.csv beside this file in
about a CPU-minute.
Run from the repository root (DOCFACT_MIRROR set):
    .venv/bin/python results/pspt_readings/tokens/experiment.py
"""

import re
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from docfact.datasets import load
from docfact.datasets.fetch import fetch
from docfact.datasets.loaders import reuters_documents

HERE = Path(__file__).parent
TOP = 12
ALPHA2, WORD2 = r"\b[a-zA-Z]{2,}\b", r"\b\w\w+\b"
VARIANTS = {  # name: (token pattern, stop list)
    "ours: letters, 2+, English stop list": (ALPHA2, "english"),
    "letters, 2+, no stop list": (ALPHA2, None),
    "letters and digits, 2+, English stop list": (WORD2, "english"),
    "letters, 2+, English stop list and 'said'": (ALPHA2, sorted(ENGLISH_STOP_WORDS | {"said"})),
}


def texts() -> list[str]:
    with tarfile.open(fetch("reuters21578_sgml")) as tar:
        members = sorted((m for m in tar if re.fullmatch(r"(\./)?reut2-\d{3}\.sgm", m.name)),
                         key=lambda m: m.name)
        return [text for m in members
                for _, text in reuters_documents(tar.extractfile(m).read().decode("latin-1"))]


def profile(name: str, X) -> dict:
    df = np.sort(np.diff(X.tocsc().indptr))[::-1]
    return {"variant": name, "documents": X.shape[0], "terms": X.shape[1],
            "tokens_per_document": round(float(X.sum()) / X.shape[0], 1),
            **{f"df{i + 1}": int(d) for i, d in enumerate(df[:TOP])}}


def main() -> None:
    rows = [profile("Deng Cai's Reuters21578.mat", load("reuters21578").X)]
    documents = texts()
    for name, (pattern, stop) in VARIANTS.items():
        vectorizer = CountVectorizer(lowercase=True, token_pattern=pattern, stop_words=stop,
                                     min_df=2)
        rows.append(profile(name, vectorizer.fit_transform(documents)))
    pd.DataFrame(rows).to_csv(HERE / "tokens.csv", index=False)


if __name__ == "__main__":
    main()
