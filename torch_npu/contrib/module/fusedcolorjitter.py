"""torch_npu.contrib.module.FusedColorJitter (torch_npu/contrib/module/fusedcolorjitter.py): random
brightness, contrast, saturation and hue of an image, as torchvision.transforms.ColorJitter.

Note [FusedColorJitter]
torch_npu's version folds the four adjustments into one 3 x 3 colour matrix and an offset (hue as a
rotation in YIQ space, contrast around a fixed grey of 127.5) and passes its arguments on in the wrong
order (the hue range comes from `brightness`, ...): an approximation of ColorJitter. This one gives
ColorJitter's result exactly: the same random order of the four adjustments and the same factors, drawn
from torch's generator as ColorJitter draws them (a seeded ColorJitter and a seeded FusedColorJitter agree),
each applied by torchvision's functional adjust_* on the image.
"""
import numpy as np
import torch
from torch import nn

__all__ = ["FusedColorJitter"]


class FusedColorJitter(nn.Module):
    """FusedColorJitter(brightness=0, contrast=0, saturation=0, hue=0); forward(img).

    The arguments are ColorJitter's (a number f: factors in [max(0, 1 - f), 1 + f], hue in [-hue, hue];
    or a (min, max) pair). img: a PIL image or an HWC numpy array (uint8 in [0, 255], float in [0, 1]),
    returned as the same kind with 3 channels (RGBA is cut to RGB, grayscale repeated); a torch image
    tensor is handed to ColorJitter as is.
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        from torchvision.transforms import ColorJitter
        self.jitter = ColorJitter(brightness, contrast, saturation, hue)
        self.brightness, self.contrast = self.jitter.brightness, self.jitter.contrast
        self.saturation, self.hue = self.jitter.saturation, self.jitter.hue

    def forward(self, img):
        if torch.is_tensor(img):
            return self.jitter(img)
        if isinstance(img, np.ndarray):
            return self._jitter_array(img)
        return self.jitter(img if img.mode == "RGB" else img.convert("RGB"))

    def _jitter_array(self, img):
        if img.ndim == 2:
            img = np.repeat(img[..., None], 3, axis=2)
        if img.ndim != 3 or img.shape[2] not in (1, 3, 4):
            raise ValueError(f"FusedColorJitter: an array image must be HWC with 1, 3 or 4 channels, got shape "
                             f"{img.shape}")
        img = np.repeat(img, 3, axis=2) if img.shape[2] == 1 else img[..., :3]
        if img.dtype == np.uint8:
            from PIL import Image
            return np.asarray(self.jitter(Image.fromarray(np.ascontiguousarray(img)))).copy()
        chw = torch.from_numpy(np.ascontiguousarray(img, dtype=np.float32)).permute(2, 0, 1)
        return self.jitter(chw).permute(1, 2, 0).numpy().astype(img.dtype)

    def __repr__(self):
        return (f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
                f"saturation={self.saturation}, hue={self.hue})")
