"""Tiny, randomly initialised image-text models saved with save_pretrained, built from configs
(nothing downloaded): a CLIP and a SigLIP with a word-level tokenizer over the caption words of
the tests, which load through transformers' AutoModel and AutoProcessor as a Hub checkpoint would
(`byo eval --provider hf-clip --model FOLDER`)."""

from __future__ import annotations

from pathlib import Path

WORDS = ["<unk>", "<pad>", "<s>", "</s>", *(
    "a an the there is are in image of to left right front behind and that it . , small large "
    "red blue green gray brown purple cyan yellow rubber metal cube sphere cylinder cone cubes spheres "
    "objects object caption 0 1 2 3 4 5 6 7 8 9".split())]


def _tokenizer(max_length: int):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(WORDS)}
    words = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    words.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[
        ("<s>", vocab["<s>"]), ("</s>", vocab["</s>"])])
    return PreTrainedTokenizerFast(tokenizer_object=words, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                   eos_token="</s>", model_max_length=max_length)


def save_tiny_clip(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, CLIPProcessor

    torch.manual_seed(seed)
    tokenizer = _tokenizer(48)
    config = CLIPConfig(
        text_config={"vocab_size": len(WORDS), "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "max_position_embeddings": 48, "pad_token_id": 1, "bos_token_id": 2,
                     "eos_token_id": 3},
        vision_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 32, "patch_size": 8},
        projection_dim=16)
    CLIPModel(config).save_pretrained(folder)
    CLIPProcessor(image_processor=CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}),
                  tokenizer=tokenizer).save_pretrained(folder)
    return folder


def save_tiny_siglip(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import SiglipConfig, SiglipImageProcessor, SiglipModel, SiglipProcessor

    torch.manual_seed(seed)
    tokenizer = _tokenizer(48)
    config = SiglipConfig(
        text_config={"vocab_size": len(WORDS), "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "max_position_embeddings": 48, "pad_token_id": 1, "bos_token_id": 2,
                     "eos_token_id": 3, "projection_size": 16},
        vision_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": 32, "patch_size": 8})
    SiglipModel(config).save_pretrained(folder)
    SiglipProcessor(image_processor=SiglipImageProcessor(size={"height": 32, "width": 32}),
                    tokenizer=tokenizer).save_pretrained(folder)
    return folder


def save_tiny_gpt2(folder: Path, seed: int = 0) -> Path:
    """A 1-layer GPT-2 over the same words: a causal language model for the perplexity check."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(WORDS), n_positions=64, n_embd=16, n_layer=1, n_head=2,
                               bos_token_id=2, eos_token_id=3)).save_pretrained(folder)
    _tokenizer(64).save_pretrained(folder)
    return folder
