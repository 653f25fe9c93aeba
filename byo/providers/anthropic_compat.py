"""Anthropic's Claude models through Anthropic's OpenAI SDK compatibility endpoint.

`https://api.anthropic.com/v1/chat/completions` (the openai SDK with that base URL), the key
(ANTHROPIC_API_KEY) as a bearer token. Per Anthropic's compatibility page at the time of writing:
images as base64 data URIs in `image_url` parts are accepted, `response_format` is ignored (so
--structured is refused here), `temperature` is capped at 1, unsupported fields such as `seed`
are ignored, and usage comes back as `prompt_tokens` / `completion_tokens`. The Messages API
needs a maximum output, so DEFAULT_MAX_TOKENS is sent when --max-tokens is not given. Image
limits: 5 MB per image and 8000 pixels a side (Anthropic's vision page; larger images are
refused, and images over about 1.15 megapixels are downscaled by the API before the model sees
them).
"""

from __future__ import annotations

from byo.providers.base import ImageLimits, Request
from byo.providers.openai_api import OpenAICompatible

ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1/"
ANTHROPIC_LIMITS = ImageLimits(max_bytes=5 * 1024 * 1024, max_pixels=8000 * 8000)
DEFAULT_MAX_TOKENS = 1024


class AnthropicCompatible(OpenAICompatible):
    type = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    key_required = True
    base_url_required = None
    batch_route = None  # no /batches behind this endpoint that byo knows of
    default_base_url = ANTHROPIC_BASE_URL
    max_tokens_field = "max_tokens"
    structured = False  # the compatibility layer ignores response_format

    def default_limits(self) -> ImageLimits:
        return ANTHROPIC_LIMITS

    def arguments(self, request: Request) -> dict:
        args = super().arguments(request)
        args.setdefault(self.max_tokens_field, DEFAULT_MAX_TOKENS)
        return args
