"""Implementation of ``xjit.scipy`` (public names are re-exported by xjit/scipy/)."""
