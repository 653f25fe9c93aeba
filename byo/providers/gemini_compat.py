"""Google's Gemini models through the Gemini API's OpenAI compatibility endpoint.

`https://generativelanguage.googleapis.com/v1beta/openai/chat/completions` (the openai SDK with
that base URL), the key (GEMINI_API_KEY) as a bearer token. Per Google's compatibility page at
the time of writing: images as base64 data URIs in `image_url` parts, `response_format`
json_schema (so --structured works), `max_tokens`, and OpenAI-shaped usage. A thinking model's
thought tokens are billed as output but, as far as we know, not counted in `completion_tokens`:
they show only in `total_tokens`, which is then more than prompt plus completion. byo reads that
difference as reasoning tokens and counts it in the output, so that costs match the bill. Image
limit: a request of at most 20 MB with its images inline, so 15 MB of image before base64.
"""

from __future__ import annotations

from byo.providers.base import ImageLimits, Response
from byo.providers.openai_api import OpenAICompatible

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"
GEMINI_LIMITS = ImageLimits(max_bytes=15 * 1024 * 1024)


class GeminiCompatible(OpenAICompatible):
    type = "gemini"
    key_env = "GEMINI_API_KEY"
    key_required = True
    base_url_required = None
    batch_route = None  # no /batches behind this endpoint that byo knows of
    default_base_url = GEMINI_BASE_URL
    max_tokens_field = "max_tokens"

    def default_limits(self) -> ImageLimits:
        return GEMINI_LIMITS

    @staticmethod
    def read(completion) -> Response:
        response = OpenAICompatible.read(completion)
        total = getattr(completion.usage, "total_tokens", None)
        thoughts = (total or 0) - response.input_tokens - response.output_tokens
        if thoughts > 0:  # thought tokens: billed as output, missing from completion_tokens
            response.reasoning_tokens = (response.reasoning_tokens or 0) + thoughts
            response.output_tokens += thoughts
        return response
