"""SummaryWriter: torch.utils.tensorboard's writer, on tensorboard's own EventFileWriter.

One ``FileWriter`` (one events file, written by a background thread that flushes every
``flush_secs`` or when ``max_queue`` events wait) per run directory: the main ``log_dir``, one
per ``add_scalars`` series (``<log_dir>/<main_tag>_<tag>``, as torch lays them out so the
series overlay in TensorBoard), and one short-lived writer per ``add_hparams`` run.
"""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as S

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Events for one run directory: summaries stamped with a step and a wall time."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        log_dir = str(log_dir)
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step: int | None = None, walltime: float | None = None) -> None:
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step: int | None = None, walltime: float | None = None) -> None:
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


class SummaryWriter:
    """Log scalars, histograms, text and hyperparameters for TensorBoard (``tensorboard --logdir runs``)."""

    def __init__(self, log_dir: str | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict | None = None
        self._get_file_writer()
        # TensorFlow's default histogram edges ("bins='tensorflow'"), made once per writer
        self.default_bins = S.tensorflow_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main run's writer, (re)opened if close() was called."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:  # tell TensorBoard to drop what an earlier run logged from this step on
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value, global_step: int | None = None, walltime: float | None = None,
                   new_style: bool = False, double_precision: bool = False) -> None:
        summary = S.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """Several series in one chart: each is its own run directory, all logged under ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = base + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(path)
            if writer is None:
                writer = self.all_writers[path] = FileWriter(path, self.max_queue, self.flush_secs,
                                                             self.filename_suffix)
            writer.add_summary(S.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values, global_step: int | None = None, bins="tensorflow",
                      walltime: float | None = None, max_bins: int | None = None) -> None:
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(S.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        self._get_file_writer().add_summary(S.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None,
                    run_name: str | None = None, global_step: int | None = None) -> None:
        """One hyperparameter run: its settings and final metrics, in a sub-run ``<log_dir>/<run_name>``."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = S.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_name = run_name or str(time.time())
        with SummaryWriter(log_dir=os.path.join(self._get_file_writer().get_logdir(), run_name)) as sub:
            for record in (exp, ssi, sei):
                sub.file_writer.add_summary(record, global_step)
            for k, v in metric_dict.items():
                sub.add_scalar(k, v, global_step)

    def flush(self) -> None:
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()
