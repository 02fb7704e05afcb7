"""torch_npu.contrib.module.ChannelShuffle (torch_npu/contrib/module/channel_shuffle.py): ShuffleNetV2's
concatenation and channel shuffle of two branches, as index_selects."""
import torch
from torch import nn

__all__ = ["ChannelShuffle"]


class ChannelShuffle(nn.Module):
    """ChannelShuffle(in_channels, groups=2, split_shuffle=True); forward(x1, x2).

    in_channels is the channel count of cat([x1, x2], 1); the channels are interleaved (0, C/2, 1,
    C/2 + 1, ...), as ShuffleNetV2's channel_shuffle(cat([x1, x2], 1), 2). With split_shuffle the result
    is chunked in two along the channels (a tuple), else returned whole. Only groups=2 is supported.
    """

    def __init__(self, in_channels, groups=2, split_shuffle=True):
        super().__init__()
        if groups != 2:
            raise ValueError(f"ChannelShuffle: only groups=2 is supported, got {groups}")
        if in_channels % groups:
            raise ValueError(f"ChannelShuffle: in_channels ({in_channels}) must be a multiple of groups ({groups})")
        self.in_channels, self.groups, self.split_shuffle = in_channels, groups, split_shuffle
        order = torch.arange(in_channels).reshape(groups, in_channels // groups).t().reshape(-1)
        half = in_channels // 2
        self.register_buffer("index", order, persistent=False)
        self.register_buffer("index_first", order[:half].clone(), persistent=False)
        self.register_buffer("index_second", order[half:].clone(), persistent=False)

    def forward(self, x1, x2):
        x = torch.cat([x1, x2], 1)
        if x.size(1) != self.in_channels:
            raise ValueError(f"ChannelShuffle: x1 and x2 have {x.size(1)} channels together, expected "
                             f"in_channels={self.in_channels}")
        device = x.device
        if self.split_shuffle:
            return x.index_select(1, self.index_first.to(device)), x.index_select(1, self.index_second.to(device))
        return x.index_select(1, self.index.to(device))

    def extra_repr(self):
        return f"in_channels={self.in_channels}, groups={self.groups}, split_shuffle={self.split_shuffle}"
