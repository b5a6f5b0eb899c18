"""The reference server's `/v1/embeddings`: deterministic hashed bag-of-words vectors.

A text's vector has one signed count per word (lower-cased runs of letters and digits), each word hashed
(blake2b) to a coordinate and a sign, then scaled to length 1 (a text without words is the zero vector).
Texts that share words point alike, so cosine retrieval over these vectors is meaningful offline; the same
text always gives the same vector. `dimensions` in the request sets the length (default 3072, the size of
text-embedding-3-large); `encoding_format: base64` answers little-endian float32 bytes, as OpenAI does.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import struct

from gym.mock.policy import ApiError

MODEL = "gym-mock-embedding"  # the embedding model the server answers for (gym.model.embeddings uses it)
DIMENSIONS = 3072
WORD = re.compile(r"[a-z0-9]+")


def embed_text(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for word in WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        number = int.from_bytes(digest, "little")
        vector[number % dimensions] += 1.0 if number >> 63 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else vector


def _encode(vector: list[float], encoding: str) -> str | list[float]:
    if encoding == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return [struct.unpack("<f", struct.pack("<f", v))[0] for v in vector]  # float32 values, as the API's


def embeddings_body(request: dict) -> dict:
    """The answer to one /v1/embeddings request (ApiError for a bad one, in OpenAI's words where it has them)."""
    model = request.get("model")
    if model != MODEL:
        raise ApiError(404, f"The model `{model}` does not exist.", "invalid_request_error", "model_not_found")
    texts = request.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) and t for t in texts):
        raise ApiError(400, "'input' must be a non-empty string or a list of non-empty strings",
                       "invalid_request_error", None)
    dimensions = request.get("dimensions") or DIMENSIONS
    encoding = request.get("encoding_format") or "float"
    if not isinstance(dimensions, int) or dimensions < 1 or encoding not in ("float", "base64"):
        raise ApiError(400, "dimensions must be a positive integer and encoding_format float or base64",
                       "invalid_request_error", None)
    data = [{"object": "embedding", "index": i, "embedding": _encode(embed_text(t, dimensions), encoding)}
            for i, t in enumerate(texts)]
    tokens = sum(len(WORD.findall(t.lower())) for t in texts)
    return {"object": "list", "data": data, "model": MODEL, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def tally(seen: dict, request: dict, body: dict, authorized: bool) -> None:
    """The server's count of what arrived: requests, texts, requests with a bearer key, encodings asked."""
    seen["requests"] += 1
    seen["inputs"] += len(body["data"])
    seen["with_key"] += int(authorized)
    encoding = str(request.get("encoding_format") or "float")
    seen["encodings"][encoding] = seen["encodings"].get(encoding, 0) + 1
