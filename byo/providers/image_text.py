"""Image-text models that rank candidate captions by similarity (`--provider clip`, `hf-clip`).

These models (CLIP, OpenCLIP, SigLIP, NegCLIP...) do not write answers: they embed an image and
each caption, and rank the captions by the cosine similarity of the embeddings, as the
retrieval protocols of Auto-Comp and COMPASS score them ("Given an image I and
a set of candidate captions, we compute image and text embeddings and rank candidates using
similarity scores s(I, c)", COMPASS, section 4). They answer the questions that carry a
candidate set (`retrieval` in questions.jsonl); byo eval's ranking path (byo.eval.ranking)
batches them, caches every image and text embedding, and records the ranking and the
similarities of every caption.

- `clip`: open_clip. `--model ARCH/PRETRAINED` as open_clip names them
  (`ViT-B-32/laion2b_s34b_b79k`, `ViT-SO400M-14-SigLIP/webli`), `hf-hub:ORG/NAME` for a Hub
  checkpoint, or `ARCH/PATH` for a local checkpoint file; weights come from open_clip's cache or
  its download, as `open_clip.create_model_and_transforms` loads them.
- `hf-clip`: Hugging Face transformers, `AutoModel` and `AutoProcessor`: a Hub name
  (`openai/clip-vit-base-patch32`, `google/siglip-base-patch16-224`) or a local folder saved
  with `save_pretrained`. SigLIP's text tower was trained on captions padded to its full length:
  a SigLIP processor pads to `max_length`.
- `rank-oracle` and `rank-blind`: reference rankers that load no model. The oracle puts the
  true caption first; the blind ranker ignores the image and gives every caption the same
  similarity: a tie at the top, which is a miss (docs/scoring.md's tie policy), so recall@1 is 0
  in every table.

Devices: `--device auto` takes CUDA, then Apple's MPS, then the CPU. `--batch-size` images or
captions go through the model together. The model loads on the first embedding not in the
cache: a rerun with every embedding cached loads nothing and calls nothing.

torch, transformers and open_clip are an optional extra: `pip install 'byo-render[clip]'`.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from PIL import Image

from byo.core.errors import ARGUMENTS, ConfigError
from byo.providers.base import GenerationParams, ImageLimits, Provider, Request, Response
from byo.providers.hf_local import model_pipeline, pick_device
from byo.providers.image_pipeline import Pipeline, unknown

INSTALL = "pip install 'byo-render[clip]' (torch, transformers and open_clip_torch; or .[clip] from a checkout)"


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _require(provider: str, *modules: str):
    """The named modules, or a ConfigError saying how to install them."""
    import importlib

    out = []
    for name in modules:
        try:
            out.append(importlib.import_module(name))
        except ModuleNotFoundError as err:
            raise ConfigError(ARGUMENTS, [("provider", f"{provider} needs {err.name}, which is not "
                                            f"installed: {INSTALL}")]) from None
        except (ImportError, RuntimeError) as err:  # e.g. a torchvision built for another torch
            raise ConfigError(ARGUMENTS, [("provider", f"{provider}: {name} does not import: "
                                            f"{_first_line(err)}; {INSTALL}")]) from None
    return out


def normalized(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


class ImageText(Provider):
    """An image-text model behind the ranking path. `embed_images` / `embed_texts` take a batch
    and return one row per item (normalized later); every call is counted in `calls`."""

    ranks = True  # answered by byo.eval.ranking, not by `answer`
    chat = False
    price_source = "embeddings"
    local = True
    needs_image = True
    cacheable = True  # its embeddings are cached (byo.eval.embeddings)
    default_timeout = 900.0

    def __init__(self, model: str, params: GenerationParams, *, api_key: str | None = None,
                 base_url: str | None = None, timeout: float = 60.0, limits: ImageLimits | None = None,
                 connections: int | None = None, device: str = "auto", dtype: str = "auto", batch_size: int = 8):
        super().__init__(model, params, limits=limits)
        self.device_asked = device
        self.batch_size = max(1, batch_size)
        self.calls = {"image_batches": 0, "text_batches": 0, "images": 0, "texts": 0}
        self.loaded = False

    @property
    def identity(self) -> str:
        return self.type

    def embed_images(self, images: Sequence[bytes]) -> np.ndarray:
        self._ensure_loaded()
        out = self._images([Image.open(io.BytesIO(b)).convert("RGB") for b in images])
        self.calls["image_batches"] += 1
        self.calls["images"] += len(images)
        return normalized(out)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        self._ensure_loaded()
        out = self._texts(list(texts))
        self.calls["text_batches"] += 1
        self.calls["texts"] += len(texts)
        return normalized(out)

    def _ensure_loaded(self) -> None:
        if not self.loaded:
            self._load()
            self.loaded = True

    def _load(self) -> None:
        raise NotImplementedError

    def _images(self, images: list[Image.Image]) -> np.ndarray:
        raise NotImplementedError

    def _texts(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    async def answer(self, request: Request) -> Response:
        raise NotImplementedError("image-text models rank captions: byo.eval.ranking asks them")


class HFClip(ImageText):
    """transformers: CLIP, SigLIP, SigLIP 2 and other dual encoders with get_image_features /
    get_text_features."""

    type = "hf-clip"

    def __init__(self, model: str, params: GenerationParams, **kwargs):
        super().__init__(model, params, **kwargs)
        self.torch, self.transformers = _require(self.type, "torch", "transformers")
        self.device = pick_device(self.torch, self.device_asked)
        try:  # the name is checked now (its config is small); the weights load on the first embedding
            self.transformers.AutoConfig.from_pretrained(model)
        except (OSError, ValueError, KeyError) as err:
            raise ConfigError(ARGUMENTS, [("model", f"could not load {model!r} as a transformers "
                                         f"image-text model: {_first_line(err)}")]) from None

    def image_pipeline(self) -> Pipeline:
        """What the model receives: read from its own image processor's config (CLIP's and SigLIP's
        resize and centre crop; byo.providers.image_pipeline.processor_pipeline), unknown where it
        cannot be read."""
        try:
            return model_pipeline(self.model)
        except ConfigError as err:
            return unknown(f"the image processor of {self.model!r} could not be read ({err})")

    @property
    def endpoint(self) -> str:
        return f"transformers on {self.device}"

    def _load(self) -> None:
        tf = self.transformers
        try:
            self.processor = tf.AutoProcessor.from_pretrained(self.model)
            self.net = tf.AutoModel.from_pretrained(self.model).to(self.device).eval()
        except (OSError, ValueError, KeyError) as err:
            raise ConfigError(ARGUMENTS, [("model", f"could not load {self.model!r} as a transformers "
                                         f"image-text model: {_first_line(err)}")]) from None
        except (RuntimeError, AssertionError) as err:
            raise ConfigError(ARGUMENTS, [("device", f"{self.device}: {_first_line(err)}")]) from None
        if not hasattr(self.net, "get_image_features") or not hasattr(self.net, "get_text_features"):
            raise ConfigError(ARGUMENTS, [("model", f"{self.model!r} is a {type(self.net).__name__}, not an "
                                         "image-text dual encoder (CLIP, SigLIP)")])
        # SigLIP was trained on text padded to its full length; CLIP on the longest of the batch.
        self.padding = "max_length" if "siglip" in type(self.net).__name__.lower() else True

    @staticmethod
    def _tensor(out):
        return out if hasattr(out, "shape") else out.pooler_output  # transformers 5: a model output

    def _images(self, images: list[Image.Image]) -> np.ndarray:
        with self.torch.inference_mode():
            inputs = self.processor(images=images, return_tensors="pt").to(self.device)
            out = self._tensor(self.net.get_image_features(pixel_values=inputs["pixel_values"]))
        return out.float().cpu().numpy()

    def _texts(self, texts: list[str]) -> np.ndarray:
        with self.torch.inference_mode():
            inputs = self.processor(text=texts, return_tensors="pt", padding=self.padding,
                                    truncation=True).to(self.device)
            out = self._tensor(self.net.get_text_features(**{k: v for k, v in inputs.items()
                                                            if k in ("input_ids", "attention_mask")}))
        return out.float().cpu().numpy()


class OpenClip(ImageText):
    """open_clip: `ARCH/PRETRAINED` (a pretrained tag or a checkpoint path) or `hf-hub:ORG/NAME`."""

    type = "clip"

    def __init__(self, model: str, params: GenerationParams, **kwargs):
        super().__init__(model, params, **kwargs)
        if not model.startswith("hf-hub:") and "/" not in model:
            raise ConfigError(ARGUMENTS, [("model", f"expected ARCH/PRETRAINED as open_clip names them "
                                         f"(e.g. ViT-B-32/laion2b_s34b_b79k) or hf-hub:ORG/NAME, got "
                                         f"{model!r}")])
        self.torch, self.open_clip = _require(self.type, "torch", "open_clip")
        self.device = pick_device(self.torch, self.device_asked)
        arch = model.partition("/")[0]
        if not model.startswith("hf-hub:") and arch not in self.open_clip.list_models():
            raise ConfigError(ARGUMENTS, [("model", f"open_clip has no architecture {arch!r}; "
                                         "open_clip.list_models() lists them")])

    @property
    def endpoint(self) -> str:
        return f"open_clip on {self.device}"

    def _load(self) -> None:
        arch, _, pretrained = (self.model, "", None) if self.model.startswith("hf-hub:") else self.model.partition("/")
        try:
            net, _, preprocess = self.open_clip.create_model_and_transforms(arch, pretrained=pretrained or None,
                                                                            device=self.device)
            self.tokenizer = self.open_clip.get_tokenizer(arch)
        except (OSError, ValueError, KeyError, RuntimeError) as err:
            raise ConfigError(ARGUMENTS, [("model", f"could not load {self.model!r} with open_clip: "
                                         f"{_first_line(err)}")]) from None
        self.net, self.preprocess = net.eval(), preprocess

    def _images(self, images: list[Image.Image]) -> np.ndarray:
        torch = self.torch
        with torch.inference_mode():
            batch = torch.stack([self.preprocess(im) for im in images]).to(self.device)
            return self.net.encode_image(batch).float().cpu().numpy()

    def _texts(self, texts: list[str]) -> np.ndarray:
        with self.torch.inference_mode():
            return self.net.encode_text(self.tokenizer(texts).to(self.device)).float().cpu().numpy()


class RankReference(Provider):
    """A reference ranker: no model, no embeddings; `scores(question)` from the question alone."""

    ranks = True
    reference = True
    chat = False
    price_source = None
    needs_image = False
    cacheable = False

    def __init__(self, model: str, params: GenerationParams, *, questions: list):
        super().__init__(model, params)
        self.calls = {"image_batches": 0, "text_batches": 0, "images": 0, "texts": 0}

    def scores(self, question) -> list[float]:
        raise NotImplementedError

    async def answer(self, request: Request) -> Response:
        raise NotImplementedError("reference rankers rank captions: byo.eval.ranking asks them")


class RankOracle(RankReference):
    type = "rank-oracle"

    def scores(self, question) -> list[float]:
        truth = question.retrieval.truth
        return [1.0 if k == truth else 0.0 for k in range(len(question.retrieval.captions))]


class RankBlind(RankReference):
    """Ignores the image (and the captions): every caption gets the same similarity."""

    type = "rank-blind"

    def scores(self, question) -> list[float]:
        return [0.0] * len(question.retrieval.captions)
