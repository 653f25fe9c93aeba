"""A tiny, randomly initialised LLaVA (a CLIP vision tower and a 1-layer Llama) with a word-level
tokenizer and a chat template, built from configs and saved with save_pretrained: a real
transformers vision-language model that loads through AutoProcessor and
AutoModelForImageTextToText as a Hub checkpoint would, without downloading anything."""

from __future__ import annotations

from pathlib import Path

WORDS = ["<unk>", "<pad>", "<s>", "</s>", "<image>", "USER:", "ASSISTANT:", *(
    "the a an is are there how many what which of on in to and or yes no 0 1 2 3 4 5 6 7 8 9 "
    "cube sphere cylinder cone red blue green piece pieces row column answer : ? . ,").split()]
CHAT_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] == 'user' %}USER: {% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image> {% else %}{{ c['text'] }} {% endif %}{% endfor %}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}")


def save_tiny_llava(folder: Path, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    vocab = {w: i for i, w in enumerate(WORDS)}
    words = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words.decoder = decoders.WordPiece(prefix="##")  # joins the words with spaces
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="<unk>", pad_token="<pad>",
                                        bos_token="<s>", eos_token="</s>")
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    torch.manual_seed(seed)
    vision = CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                              image_size=32, patch_size=8, projection_dim=16)
    text = LlamaConfig(vocab_size=len(WORDS), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512,
                       bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"], pad_token_id=vocab["<pad>"])
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=vocab["<image>"],
                         vision_feature_layer=-1, vision_feature_select_strategy="default")
    model = LlavaForConditionalGeneration(config)
    processor = LlavaProcessor(
        image_processor=CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}),
        tokenizer=tokenizer, patch_size=8, vision_feature_select_strategy="default", chat_template=CHAT_TEMPLATE,
        num_additional_image_tokens=1)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
