"""Azure OpenAI: Chat Completions of a deployment, through the openai SDK's `AsyncAzureOpenAI`.

A request goes to `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=V`
with the key in the `api-key` header (AZURE_OPENAI_API_KEY). The endpoint is the resource's URL
(`https://RESOURCE.openai.azure.com`: --base-url, the providers file's `base_url`, or
AZURE_OPENAI_ENDPOINT); the deployment is the providers file's `deployment` or --deployment,
else the model's name (--model names the model in records and prices). The api-version is
--api-version, the providers file's `api_version`, OPENAI_API_VERSION, or DEFAULT_API_VERSION.
Batches (byo eval --batch) go to `{endpoint}/openai/files` and `/openai/batches`, each request
with the deployment as its model (a Global Batch deployment).
"""

from __future__ import annotations

import os

from byo.core.urls import redact_url
from byo.providers.base import GenerationParams, ImageLimits, Request, http_timeout
from byo.providers.openai_api import OPENAI_LIMITS, ChatCompletions, openai_http_client

DEFAULT_API_VERSION = "2024-10-21"  # a generally available version with chat, vision and the Batch API
API_VERSION_ENV = "OPENAI_API_VERSION"  # what the openai SDK itself reads


class AzureOpenAI(ChatCompletions):
    type = "azure"
    key_env = "AZURE_OPENAI_API_KEY"
    base_url_env = "AZURE_OPENAI_ENDPOINT"
    deployments = True
    base_url_required = "the resource's endpoint, e.g. https://RESOURCE.openai.azure.com (or AZURE_OPENAI_ENDPOINT)"
    batch_route = "/chat/completions"  # the `url` of each line of an Azure batch file

    def __init__(self, model: str, params: GenerationParams, *, api_key: str | None, base_url: str | None = None,
                 timeout: float = 60.0, limits: ImageLimits | None = None, connections: int | None = None,
                 api_version: str | None = None, deployment: str | None = None):
        self.api_version = api_version or os.environ.get(API_VERSION_ENV) or DEFAULT_API_VERSION
        self.deployment = deployment or model
        super().__init__(model, params, api_key=api_key, base_url=base_url, timeout=timeout, limits=limits,
                         connections=connections)

    def default_limits(self) -> ImageLimits:
        return OPENAI_LIMITS

    @property
    def identity(self) -> str:
        """The endpoint and the deployment: another deployment may serve another model version."""
        return f"{self.type}@{redact_url(self.base_url)}/deployments/{self.deployment}"

    def make_client(self, *, api_key, base_url, timeout, connections):
        import openai

        self.sdk = openai
        return openai.AsyncAzureOpenAI(api_key=api_key, azure_endpoint=base_url, api_version=self.api_version,
                                       timeout=http_timeout(timeout, openai.Timeout), max_retries=0,
                                       http_client=openai_http_client(connections, self))

    def arguments(self, request: Request) -> dict:
        return {**super().arguments(request), "model": self.deployment}  # the SDK routes by it
