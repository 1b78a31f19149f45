"""The Chinese (zh_CN) table of :mod:`roofline_lib.words`: English text -> 简体中文.

Keys are the English texts exactly as code writes them (:meth:`str.format` templates); each
translation has the same ``{fields}``. Terms follow the book's glossary (book/11_takeaways.md):
算术强度, 临界算术强度, 计算受限, 内存带宽受限, 网络受限, 峰值算力, 高带宽内存 (HBM), 稠密/稀疏,
单向/双向. Units, numbers, chip and link names stay as they are.
"""

from __future__ import annotations

ZH_CN: dict[str, str] = {
    # -- regimes and levels (roofline_lib.roofline, .hardware)
    "compute-bound": "计算受限",
    "memory-bound": "内存带宽受限",
    "network-bound": "网络受限",
    "one-way bytes/s per chip, in the pattern a ring collective uses": (
        "每芯片的单向字节/秒，即环形集合通信所用的收发模式"
    ),
    "as printed": "按公布值",
    "dense = sparse headline ÷ 2": "稠密 = 稀疏标称值 ÷ 2",
    "one-way = bidirectional headline ÷ 2": "单向 = 双向标称值 ÷ 2",
    "derived": "推算值",
    "assumed: {what}": "假设：{what}",
    "; ": "；",
    (
        "no vendor figure; 132 SMs × 128 bytes/clock (32 banks × 4 bytes, CUDA guide) × 1.83 GHz "
        "(the boost clock behind the whitepaper's 989.4 TFLOPS dense bf16) = 30.9 TB/s"
    ): (
        "厂商未公布；132 个 SM × 每时钟 128 字节（32 个 bank × 4 字节，见 CUDA 编程指南）× 1.83 "
        "GHz（白皮书中 989.4 TFLOPS 稠密 bf16 所依据的加速频率）= 30.9 TB/s"
    ),
    "per H100/H200 GPU, all 18 links to the NVSwitch fabric together": (
        "每张 H100/H200 GPU，连向 NVSwitch 交换网络的全部 18 条链路合计"
    ),
    "per GPU: one 400 Gb/s ConnectX-7 port per GPU, as in a DGX H100": (
        "每张 GPU：每张 GPU 一个 400 Gb/s 的 ConnectX-7 端口，与 DGX H100 相同"
    ),
    # -- charts (roofline_lib.plots)
    "Arithmetic intensity (FLOPs/byte)": "算术强度（FLOPs/byte）",
    "Achievable throughput (FLOP/s)": "可达吞吐（FLOP/s）",
    "bandwidth-bound\nat both": "两种带宽下\n均带宽受限",
    "bound only at\nlow bandwidth": "仅低带宽时\n带宽受限",
    "compute-bound\nat both": "两种带宽下\n均计算受限",
    "bandwidth {label}": "带宽 {label}",
    "critical {value}": "临界 {value}",
    "peak {value}": "峰值 {value}",
    "More bandwidth moves the ridge left: fewer operations are bandwidth-bound": (
        "带宽越大，拐点越往左：带宽受限的算子越少"
    ),
    "{chip}: critical {value}": "{chip}：临界 {value}",
    "Arithmetic intensity (FLOPs/byte of {level})": "算术强度（每 {level} 字节的 FLOPs）",
    "{chips} ({dtype}): below the critical intensity, bandwidth sets the speed": (
        "{chips}（{dtype}）：低于临界算术强度时，速度由带宽决定"
    ),
    "Batch size B (tokens)": "批大小 B（token 数）",
    "Throughput grows with batch size until the chip is compute-bound": (
        "吞吐随批大小增长，直到芯片计算受限"
    ),
    "{chip} peak {value}": "{chip} 峰值 {value}",
    "Achievable {dtype} throughput (FLOP/s)": "可达 {dtype} 吞吐（FLOP/s）",
    "{chip}: small matmuls need a larger batch to reach the peak": (
        "{chip}：矩阵越小，达到峰值所需的批越大"
    ),
    "matmul, D = {D}, F = {F}": "矩阵乘法，D = {D}，F = {F}",
    "{chip} critical {value}": "{chip} 临界 {value}",
    "A matmul's intensity is about B: newer chips need bigger batches": (
        "矩阵乘法的算术强度约为 B：越新的芯片需要越大的批"
    ),
    "{level} bandwidth W (bytes/s)": "{level} 带宽 W（字节/秒）",
    "Dense {dtype} peak C (FLOP/s)": "稠密 {dtype} 峰值 C（FLOP/s）",
    "Critical intensity I* = C/W of each chip ({dtype}, {level})": (
        "各芯片的临界算术强度 I* = C/W（{dtype}，{level}）"
    ),
    "{level} {bandwidth}: critical {value}": "{level} {bandwidth}：临界 {value}",
    "peak {value} ({dtype})": "峰值 {value}（{dtype}）",
    "Arithmetic intensity at each level (FLOPs per byte moved there)": (
        "各层级上的算术强度（每移动一个字节的 FLOPs）"
    ),
    "{chip}: the slower the level, the more reuse it takes to stay compute-bound": (
        "{chip}：层级越慢，保持计算受限所需的数据复用越多"
    ),
    # -- a transformer's passes (roofline_lib.transformer)
    "attention norm": "注意力归一化",
    "qkv projection": "QKV 投影",
    "kv-cache write": "写入 KV 缓存",
    "attention": "注意力",
    "output projection": "输出投影",
    "residual adds": "残差相加",
    "mlp norm": "MLP 归一化",
    "router": "路由",
    "mlp up": "MLP 上投影",
    "mlp activation": "MLP 激活",
    "mlp down": "MLP 下投影",
    "embedding lookup": "嵌入查表",
    "final norm": "最终归一化",
    "lm head": "LM 头",
    "T_math (compute)": "T_math（计算）",
    "T_HBM (memory)": "T_HBM（内存）",
    "T_net (all-reduce)": "T_net（AllReduce）",
    "Time per chip, all layers (s)": "每芯片时间，所有层合计（s）",
    "a prefill of {tokens} tokens": "{tokens} 个 token 的预填充",
    "one decode step of B = {batch}": "B = {batch} 的一个解码步",
    "{model}, {what} on {where}: ≥ {time}, {regime}": (
        "{model}，{where} 上 {what}：≥ {time}，{regime}"
    ),
    "weights": "权重",
    "KV cache": "KV 缓存",
    "total (with activations)": "合计（含激活）",
    "does not fit in {capacity}": "超出 {capacity}",
    "Context S (tokens)": "上下文长度 S（token 数）",
    "HBM bytes read per chip": "每芯片读取的 HBM 字节数",
    (
        "{model}, one decode step of B = {batch} on {where}: the KV cache outgrows the weights "
        "at S ≈ {context}"
    ): ("{model}，{where} 上 B = {batch} 的一个解码步：S ≈ {context} 时 KV 缓存超过权重"),
    # -- the measured roofline (roofline_lib.measure)
    "{count} of the {total} sizes": "{total} 个规模中的 {count} 个",
    "Measured roofline (the time budget left no room for the matmul sweep)": (
        "实测 roofline（时间预算不够做矩阵乘法扫描）"
    ),
    "Measured matmuls reach the roofline (≥ {bound}) at every B measured": (
        "实测矩阵乘法在所测的每个 B 上都达到 roofline（≥ {bound}）"
    ),
    "Measured matmuls reach {span} of the roofline at {where}; ≥ {bound} only at {above}": (
        "实测矩阵乘法在 {where} 达到 roofline 的 {span}；仅在 {above} 达到 ≥ {bound}"
    ),
    "Measured matmuls reach {span} of the roofline at {where}": (
        "实测矩阵乘法在 {where} 达到 roofline 的 {span}"
    ),
    "predicted: roofline of measured peak {peak} and triad {bandwidth}": (
        "预测：由实测峰值 {peak} 与 triad 带宽 {bandwidth} 得到的 roofline"
    ),
    "theoretical peak {peak} (an upper bound)": "理论峰值 {peak}（上界）",
    "theoretical peak {peak} (at the clock read; not a bound)": (
        "理论峰值 {peak}（按读到的频率；不是上界）"
    ),
    "predicted at each B": "各 B 的预测值",
    "achieved: median, bar = range of repeats": "实测：中位数，误差棒 = 重复测量的范围",
    "{machine}, {backend} {dtype}, {shape}": "{machine}，{backend} {dtype}，{shape}",
    "{dtype} matmul throughput (FLOP/s)": "{dtype} 矩阵乘法吞吐（FLOP/s）",
    "; machine busy ({share}% CPU share)": "；机器繁忙（CPU 占比 {share}%）",
    "{model} (1 core)": "{model}（1 核）",
    "{model} ({cores} cores)": "{model}（{cores} 核）",
    " ({n} logical CPUs)": "（{n} 个逻辑 CPU）",
    ", limited to {n} CPUs by a cgroup quota": "，被 cgroup 配额限制为 {n} 个 CPU",
    "{size} last-level cache ({source})": "{size} 末级缓存（{source}）",
    "last-level cache {source}": "末级缓存：{source}",
    "{clock} clock (from {source})": "时钟频率 {clock}（来自 {source}）",
    "clock unknown ({source})": "时钟频率未知（{source}）",
    ", {size} memory": "，{size} 内存",
    "none recognised": "未识别",
    " with {n} thread(s)": "（{n} 个线程）",
    (
        "{model}: {cores} physical core(s){smt}{quota} available, {clock}, SIMD {simd}, {cache}"
        "{memory}"
    ): ("{model}：可用 {cores} 个物理核{smt}{quota}，{clock}，SIMD {simd}，{cache}{memory}"),
    ", {size} L2": "，{size} L2",
    ", {n} SMs": "，{n} 个 SM",
    ", compute capability {cc}": "，计算能力 {cc}",
    "unknown": "未知",
    (
        "GPU {name} ({device}{mem}{l2}{sms}{cc}), driver {driver}, CUDA {cuda}; matmuls by "
        "{library}; measured with the {backend} backend ({versions}) on {platform}. Host CPU "
        "{host}."
    ): (
        "GPU {name}（{device}{mem}{l2}{sms}{cc}），驱动 {driver}，CUDA {cuda}；矩阵乘法由 "
        "{library} 执行；使用 {backend} 后端（{versions}）在 {platform} 上测量。主机 CPU {host}"
        "。"
    ),
    (
        "CPU {host}. Matmuls ran on {threads} thread(s) by {library}; measured with the {backend}"
        " backend ({versions}) on {platform}."
    ): (
        "CPU {host}。矩阵乘法在 {threads} 个线程上执行，数学库为 {library}；使用 {backend} 后端"
        "（{versions}）在 {platform} 上测量。"
    ),
    "cpufreq's cpuinfo_max_freq: the maximum boost clock": (
        "cpufreq 的 cpuinfo_max_freq：最高加速频率"
    ),
    "'cpu MHz' in /proc/cpuinfo: the current or nominal clock; turbo may run faster": (
        "/proc/cpuinfo 中的 “cpu MHz”：当前或标称频率；睿频可能更快"
    ),
    "the model name: the base clock; turbo runs faster": "型号名称：基础频率；睿频更快",
    "no clock readable: no cpufreq, no 'cpu MHz', none in the model name": (
        "读不到频率：没有 cpufreq，没有 “cpu MHz”，型号名称中也没有"
    ),
    "GPU's L2 cache": "GPU 的 L2 缓存",
    "last-level cache": "末级缓存",
    (
        "The weight matrix ({weights}) is less than twice the {cache} ({size}): small-B points "
        "may read it from cache and run above the memory roofline."
    ): (
        "权重矩阵（{weights}）不到{cache}（{size}）的两倍：小 B 的点可能从缓存读取它，从而跑到内"
        "存 roofline 之上。"
    ),
    (
        "The triad's arrays ({size} each) are only {multiple}× the {cache}, not {wanted}×: "
        "memory was too small, and part of the traffic may hit the cache."
    ): (
        "triad 的数组（每个 {size}）只有{cache}的 {multiple} 倍，而不是 {wanted} 倍：内存太小，部"
        "分访问可能命中缓存。"
    ),
    (
        "The measured {dtype} peak exceeds the theoretical one ({ratio}×): its assumptions do "
        "not hold here ({assumptions})."
    ): (
        "实测 {dtype} 峰值超过了理论峰值（{ratio} 倍）：理论值的假设在这里不成立（{assumptions}）。"
    ),
    (
        "At B = {batches} the matmul ran above the memory roofline: it mostly reads (its "
        "weights), while the triad also writes and write-allocates, so a read stream can outrun "
        "the triad's bandwidth; data still in cache from the previous call costs no memory "
        "traffic either."
    ): (
        "在 B = {batches} 时，矩阵乘法跑到了内存 roofline 之上：它主要是读（读权重），而 triad 还"
        "要写并做写分配，所以纯读的数据流可以快于 triad 带宽；上一次调用留在缓存里的数据也不产生"
        "内存流量。"
    ),
    (
        "At B = {batches} the matmul ran faster than the measured peak: the peak is itself a "
        "measurement (one {n}×{n} matmul, which a larger matmul can beat, or which ran while the "
        "machine was busier)."
    ): (
        "在 B = {batches} 时，矩阵乘法快于实测峰值：峰值本身也是一次测量（一个 {n}×{n} 的矩阵乘法"
        "，更大的矩阵乘法可能更快，或者它运行时机器更忙）。"
    ),
    (
        "The run got only {share} of the CPU time its {threads} thread(s) asked for: other "
        "processes were using the cores, so the rates understate this machine."
    ): (
        "这次运行只得到了其 {threads} 个线程所需 CPU 时间的 {share}：其他进程占用了核心，所以这些"
        "速率低估了这台机器。"
    ),
    (
        "At B = {batches} even the slowest repeat ran at {times} its roof (more than the "
        "{limit}× that timing noise and the model's known gaps allow): the measured peak and "
        "bandwidth were not this machine's limits."
    ): (
        "在 B = {batches} 时，连最慢的一次重复也跑到了其屋顶的 {times}（超过计时噪声与模型已知"
        "的缺口所能容许的 {limit}×）：实测的峰值与带宽并不是这台机器的极限。"
    ),
    (
        "The measured {dtype} peak is {percent} of the theoretical one, under the {limit} an "
        "idle machine reaches: the run measured a starved process, not this machine's peak."
    ): (
        "实测 {dtype} 峰值只有理论峰值的 {percent}，低于空闲机器能达到的 {limit}：这次运行测到的"
        "是一个得不到 CPU 的进程，而不是这台机器的峰值。"
    ),
    (
        "The run got {share} of the CPU time it asked for, under {limit}: other processes had "
        "the cores most of the time, so its figures were measured under different loads."
    ): (
        "这次运行只得到了所需 CPU 时间的 {share}，低于 {limit}：其他进程在大部分时间里占着核心，"
        "所以它的各项数字是在不同负载下测得的。"
    ),
    "No matmul was measured:\nthe time budget left no room for the sweep.": (
        "没有测到任何矩阵乘法：\n时间预算不够做扫描。"
    ),
    "What this build measured: not a roofline (its own checks failed)": (
        "本次构建的实测结果：不是 roofline（未通过自身的检查）"
    ),
    "The time budget ({budget} s) left out B = {batches}; a larger budget measures them.": (
        "时间预算（{budget} s）略去了 B = {batches}；预算更大时会测量它们。"
    ),
    "The time budget ({budget} s) left out B = {batches}; a larger budget measures it.": (
        "时间预算（{budget} s）略去了 B = {batches}；预算更大时会测量它。"
    ),
    "{cores} cores × {clock} × {per_cycle} {dtype} FLOPs/cycle ({isa}) = {peak}": (
        "{cores} 核 × {clock} × 每周期 {per_cycle} 次 {dtype} FLOPs（{isa}）= {peak}"
    ),
    "{cores} core × {clock} × {per_cycle} {dtype} FLOPs/cycle ({isa}) = {peak}": (
        "{cores} 核 × {clock} × 每周期 {per_cycle} 次 {dtype} FLOPs（{isa}）= {peak}"
    ),
    "{units}; clock from {source}": "{units}；频率来自 {source}",
    "; not an upper bound: a core in turbo runs above this clock": (
        "；不是上界：睿频时核心频率高于此值"
    ),
    "roofline_lib catalog, {chip} dense {dtype}: {peak}": (
        "roofline_lib 目录，{chip} 稠密 {dtype}：{peak}"
    ),
    "the vendor's dense peak at boost clock{basis}": "厂商给出的加速频率下的稠密峰值{basis}",
    (
        "2 FMA units × 512 bits per core, the most an AVX-512 core has; cores with one 512-bit "
        "FMA unit, or that split 512-bit instructions into two 256-bit halves (AMD Zen 4), peak "
        "at half"
    ): (
        "每核 2 个 FMA 单元 × 512 位，这是 AVX-512 核心的上限；只有一个 512 位 FMA 单元、或把 "
        "512 位指令拆成两个 256 位半条执行（AMD Zen 4）的核心，峰值减半"
    ),
    "2 FMA units × 256 bits per core": "每核 2 个 FMA 单元 × 256 位",
    "one 256-bit add and one 256-bit multiply unit": "一个 256 位加法单元和一个 256 位乘法单元",
    "4 FMA units × 128 bits per core (Neoverse V1/V2, Apple M)": (
        "每核 4 个 FMA 单元 × 128 位（Neoverse V1/V2、Apple M）"
    ),
    "one 128-bit add and one 128-bit multiply unit": "一个 128 位加法单元和一个 128 位乘法单元",
    # -- mistake hints (roofline_lib.mistakes)
    "kilo": "千 k",
    "mega": "兆 M",
    "giga": "吉 G",
    "tera": "太 T",
    "peta": "拍 P",
    "exa": "艾 E",
    "zero where the answer is not": "答案不为零，这里却是零",
    "too large": "偏大",
    "too small": "偏小",
    "a unit prefix off ({prefix}, 10^{power}), {way}": (
        "单位前缀错了（{prefix}，10^{power}），{way}"
    ),
    "a power of ten off (10^{power})": "差了一个 10 的幂（10^{power}）",
    "a factor of two dropped or doubled": "漏乘或多乘了一个 2",
    "bits and bytes mixed up (8 bits to a byte), {way}": "把位和字节弄混了（1 字节 = 8 位），{way}",
    "binary and decimal prefixes mixed up (1024 against 1000)": (
        "把二进制前缀和十进制前缀弄混了（1024 与 1000）"
    ),
    "a factor of {n} {way}": "{way} {n} 倍",
    "the sign flipped": "符号反了",
    "off by one constant factor": "差了一个常数因子",
    "{words}, with the sign flipped": "{words}，而且符号反了",
    # -- the explorers (roofline_lib.explorer, .explorer_data, roofline-explorer.js)
    "matmul X[B, D] · Y[D, F]": "矩阵乘法 X[B, D] · Y[D, F]",
    "The matmul": "矩阵乘法",
    "batched matmul: a different Y[D, F] for each of the B rows": (
        "批量矩阵乘法：B 行中每行各用一个不同的 Y[D, F]"
    ),
    "The batched matmul": "批量矩阵乘法",
    "matmul split along D over 2 chips (network)": "沿 D 切分到 2 块芯片的矩阵乘法（网络）",
    "The 2-chip matmul": "双芯片矩阵乘法",
    "dot product of two length-D vectors": "两个长度为 D 的向量的点积",
    "The dot product": "点积",
    "ReLU over a [B, D] activation": "对 [B, D] 激活做 ReLU",
    "ReLU": "ReLU 算子",
    "LayerNorm over a [B, D] activation": "对 [B, D] 激活做 LayerNorm",
    "LayerNorm": "LayerNorm 算子",
    "softmax over a [B, D] activation": "对 [B, D] 激活做 softmax",
    "Softmax": "Softmax 算子",
    "bf16 × bf16 → bf16": "bf16 × bf16 → bf16",
    "int8 × int8 → int8": "int8 × int8 → int8",
    "bf16 activations × int8 weights": "bf16 激活 × int8 权重",
    "fp32 × fp32 → fp32": "fp32 × fp32 → fp32",
    (
        "Move a slider or change a menu: the point, the verdict and the times follow. Numbers "
        "come from <code>roofline_lib</code>."
    ): (
        "拖动滑块或更改菜单：点的位置、判断和时间都会随之变化。数字来自 <code>roofline_lib</code>。"
    ),
    (
        "<b>Snapshot</b>, rendered when the book was built: these controls do not respond here. "
        "Live: <code>make lab</code>, then <code>from roofline_lib.explorer import explore; "
        "explore()</code>."
    ): (
        "<b>快照</b>，在构建本书时渲染：这里的控件不会响应。交互版：<code>make lab</code>，然后运"
        "行 <code>from roofline_lib.explorer import explore; explore()</code>。"
    ),
    (
        "Vector operations run on vector units, whose peak is below the matrix-unit peak drawn "
        "here; they sit so far left of either ridge that the bandwidth line binds first."
    ): (
        "向量算子在向量单元上运行，其峰值低于图中画出的矩阵单元峰值；它们远在两个拐点的左侧，总是"
        "先受带宽斜坡限制。"
    ),
    "{operation} is {regime} on {chip}: intensity {intensity} {relation} critical {critical}": (
        "{operation}在 {chip} 上{regime}：算术强度 {intensity} {relation} 临界 {critical}"
    ),
    (
        "{operation} is {regime} on {chip}: intensity {intensity} {relation} critical {critical}"
        "; it can reach {rate}."
    ): (
        "{operation} 在 {chip} 上{regime}：算术强度 {intensity} {relation} 临界 {critical}；最多"
        "可达 {rate}。"
    ),
    "Operation": "算子",
    "FLOPs": "FLOPs",
    "FLOPs per chip": "每芯片 FLOPs",
    "Bytes moved ({level})": "移动的字节数（{level}）",
    "Bytes moved per chip ({level})": "每芯片移动的字节数（{level}）",
    "Arithmetic intensity": "算术强度",
    "Critical intensity ({chip}, {dtype}, {level})": "临界算术强度（{chip}，{dtype}，{level}）",
    "Regime": "受限类型",
    "T_math = FLOPs / peak": "T_math = FLOPs / 峰值",
    "T_comms = bytes / {level} bandwidth": "T_comms = 字节数 / {level} 带宽",
    "Lower bound, max(T_math, T_comms)": "下界，max(T_math, T_comms)",
    "Upper bound, T_math + T_comms": "上界，T_math + T_comms",
    "Achievable throughput": "可达吞吐",
    "{rate} ({percent} of peak)": "{rate}（峰值的 {percent}）",
    "Chip": "芯片",
    "Numbers": "数值格式",
    "Not a valid setting:": "设置无效：",
    "Not a valid setting: {error}": "设置无效：{error}",
    "B, tokens": "B，token 数",
    "D, contracting dimension": "D，收缩维度",
    "F, output features": "F，输出维度",
    "k, FLOPs per element": "k，每元素 FLOPs",
    "H, attention heads": "H，注意力头数",
    "S, sequence length": "S，序列长度",
    "d, head dimension": "d，头维度",
    "M, query rows per flash tile": "M，每个 flash 分块的查询行数",
    "N, chips": "N，芯片数",
    "exchange": "交换",
    "reduce scatter": "ReduceScatter",
    "all reduce": "AllReduce",
    "elementwise, k FLOPs per element of a [B, D] activation": (
        "逐元素算子，对 [B, D] 激活每元素 k 次 FLOPs"
    ),
    "attention, standard (scores in HBM)": "注意力，标准实现（分数写入 HBM）",
    "attention, flash (tiles of M query rows on chip)": (
        "注意力，flash 实现（每块 M 个查询行留在片上）"
    ),
    "matmul split along D over N chips (network)": "沿 D 切分到 N 块芯片的矩阵乘法（网络）",
    "Readout (roofline_lib's formulas and formatting)": "读数（roofline_lib 的公式与格式）",
    "Explorer settings": "探索器设置",
    "Bytes cross": "字节经过",
    "Collective": "集合通信",
    "Peak, {dtype}": "峰值，{dtype}",
    "{level}, one-way per chip at N = {n}": "{level}，N = {n} 时每芯片单向",
    "{level} bandwidth": "{level} 带宽",
    "Sources of the {chip} figures used here": "此处所用 {chip} 数据的来源",
    "{label}: {value}. ": "{label}：{value}。",
    ": “{quote}” ({basis}; verified {date})": "：“{quote}”（{basis}；核对于 {date}）",
    ". {note}": "。{note}",
    "no citation in the catalog": "目录中没有出处",
    (
        "Roofline of the {chip} ({dtype}, {level}): the point, at intensity {intensity} "
        "FLOPs/byte, reaches {rate} under a roof of {peak}."
    ): (
        "{chip} 的 roofline（{dtype}，{level}）：该点的算术强度为 {intensity} FLOPs/byte，在 "
        "{peak} 的屋顶下可达 {rate}。"
    ),
    "The chart library did not load; the readout below is complete.": (
        "图表库没有加载；下面的读数是完整的。"
    ),
    "Achievable FLOP/s": "可达 FLOP/s",
    "roofline, HBM": "roofline，HBM",
    "roofline, {level}": "roofline，{level}",
    "the operation": "该算子",
    (
        "Not a valid setting: the collective “{collective}” needs N = {needs}, and N is {n}. "
        "Move N to {needs}, or choose a collective allowed at N = {n}: {allowed}."
    ): (
        "设置无效：集合通信“{collective}”需要 N = {needs}，而当前 N = {n}。请把 N 移到 {needs}，"
        "或选择 N = {n} 时可用的集合通信：{allowed}。"
    ),
    "No point: this setting is not valid (the readout says why).": (
        "不画点：此设置无效（原因见读数）。"
    ),
    ", ": "、",
    "needs N = {needs}": "需要 N = {needs}",
    "{chip} publishes no {dtype} peak": "{chip} 没有公布 {dtype} 峰值",
    "{chip} has no network link in the catalog": "目录中 {chip} 没有网络链路",
    "{label} ({why})": "{label}（{why}）",
    "{level}: {bandwidth}": "{level}：{bandwidth}",
    "ridge: I* = {value} FLOPs/byte": "拐点：I* = {value} FLOPs/byte",
    (
        "Idealised at {level}: the bytes counted here are the HBM bytes (each input read once, "
        "each output written once), as if each crossed {level} once. A real kernel writes every "
        "byte into {level} and reads its tiles back many times; the library has no model of "
        "that traffic, so the true intensity at {level} is lower and this point is optimistic: "
        "an operation drawn compute-bound here may be bound by {level}."
    ): (
        "{level} 处是理想化的：这里计的字节数就是 HBM 的字节数（每个输入读一次、每个输出写一次），"
        "好像每个字节只经过 {level} 一次。真实的内核会把每个字节写入 {level}，再把分块反复读出很多"
        "次；本库没有这部分流量的模型，所以 {level} 处的真实算术强度更低，这个点偏乐观：这里画成"
        "计算受限的算子，实际可能受 {level} 限制。"
    ),
    # -- answer boxes (book/booktools.py)
    "Type a number first.": "请先输入一个数。",
    "That is not a number: write it like 1e12, 0.0012 or 1,000.": (
        "这不是一个数：请写成 1e12、0.0012 或 1,000 这样的形式。"
    ),
    "The answer is a positive quantity, so a negative number cannot be it.": (
        "答案是正数，所以不可能是负数。"
    ),
    "The answer is a positive quantity, so zero cannot be it.": "答案是正数，所以不可能是零。",
    "That number is too large to be a number at all (it overflows): check the exponent.": (
        "这个数大到溢出了：请检查指数。"
    ),
    "Right: within {tolerance} of the library's value. Open the solution to compare.": (
        "正确：与库计算的值相差在 {tolerance} 以内。可以打开解答对照。"
    ),
    "Not within {tolerance} of the answer. Try again, or open the solution.": (
        "与答案相差超过 {tolerance}。再试一次，或打开解答。"
    ),
    "Also right: {note}": "也正确：{note}",
    "Show the working now (it gives the answer away)": "现在显示推导（会揭晓答案）",
    "The working that answers the question above is folded until you answer it.": (
        "回答上面问题的推导已折叠，答对后展开。"
    ),
    "The working that answers the questions above is folded until you answer them.": (
        "回答上面几道问题的推导已折叠，全部答对后展开。"
    ),
    "That is the fraction: the question asks for a percentage (×100).": (
        "这是小数：题目问的是百分数（×100）。"
    ),
    "That is the sources' figure, an erratum: {why}. The errata page corrects it.": (
        "这是原始资料中的数字，属于勘误：{why}。勘误页给出了更正。"
    ),
    "tokens": "token 数",
    "requests": "请求数",
    "no source (user-defined)": "无出处（用户自定义）",
    "Your answer ({unit}), checked to within {tolerance}:": (
        "你的答案（{unit}），误差在 {tolerance} 以内即为正确："
    ),
    "Your answer, checked to within {tolerance}:": "你的答案，误差在 {tolerance} 以内即为正确：",
    "Check": "检查",
    # -- the book's boxes (book/_ext)
    "Worked solutions are hidden in this edition of the course.": "本版课程隐藏了详解。",
    "Worked solution": "详解",
    "Worked solution: {argument}": "详解：{argument}",
    "Takeaway": "要点",
    "Takeaway: {argument}": "要点：{argument}",
    "Erratum": "勘误",
    "Erratum: {argument}": "勘误：{argument}",
    # -- the notebook to take home (book/_ext/take_home.py)
    (
        "*Answer box: work out your number, then check it in this exercise on the online page of "
        "the course.*"
    ): "*答案框：先算出你的数，再到课程在线页面的这道练习中核对。*",
    (
        "The course's page helpers (book/booktools.py): run this cell first; the other cells use "
        "its functions."
    ): "课程页面的辅助函数（book/booktools.py）：请先运行这个单元格，其他单元格会用到其中的函数。",
    "The live explorer needs JavaScript. In JupyterLab: {code}": (
        "交互式探索器需要 JavaScript。在 JupyterLab 中：{code}"
    ),
    # -- book/01_where_the_time_goes.md
    "That is the time in milliseconds, and the box reads seconds: type {ms} ms.": (
        "这是以毫秒计的时间，而答案框的单位是秒：请输入 {ms} ms。"
    ),
    (
        "That is half: either the bidirectional figure (links here are one-way) or one byte an element "
        "(bf16 has two)."
    ): (
        "这是一半：要么用了双向带宽（这里的链路带宽是单向的），要么每个元素只算了一个字节（bf16 是"
        "两个）。"
    ),
    "That is the time to read it from HBM; NVLink is much slower.": (
        "这是从 HBM 读取它的时间；NVLink 慢得多。"
    ),
    (
        "That halves the whole time, as if the data set it; here the compute units are the slower side, "
        "and they do not get faster."
    ): ("这把总时间减半了，好像时间由数据传输决定；这里较慢的一方是计算单元，而它们并没有变快。"),
    "That is the new time over the old, halved: the question asks old over new.": (
        "这是新时间除以旧时间，而且按减半算：题目问的是旧时间 ÷ 新时间。"
    ),
    "That adds the two times; with overlap the time is the larger one, max(T_math, T_comms).": (
        "这把两个时间相加了；有重叠时，时间是较大的那个，max(T_math, T_comms)。"
    ),
    "That is C / FLOPs, upside down: T = FLOPs / C.": (
        "这是 C / FLOPs，分子分母颠倒了：T = FLOPs / C。"
    ),
    "done at {time}": "{time} 完成",
    "double-buffered": "双缓冲",
    "no overlap": "无重叠",
    "Time (µs)": "时间（µs）",
    "load two tiles from HBM": "从 HBM 载入两个分块",
    "multiply them": "相乘",
    "A second buffer hides the loads behind the multiplies: about max, not sum": (
        "第二个缓冲区把载入藏在乘法后面：总时间约为最大值，而不是总和"
    ),
    "TPU v5e critical intensity {value}": "TPU v5e 临界算术强度 {value}",
    "Upper bound ÷ lower bound": "上界 ÷ 下界",
    "Overlap is worth up to 2×,\nand only near the critical intensity": (
        "重叠最多带来 2 倍收益，\n而且只在临界算术强度附近"
    ),
    # -- book/02_arithmetic_intensity.md
    "the guide's 298 divides a peak rounded up to 10¹⁵ FLOP/s": (
        "学习指南的 298 用的是向上取整到 10¹⁵ FLOP/s 的峰值"
    ),
    "That is the peak's growth alone; the bandwidth grew too, and I* = C/W.": (
        "这只是峰值的增长；带宽也增长了，而 I* = C/W。"
    ),
    "That is the bandwidth's growth alone; I* = C/W divides the peak by it.": (
        "这只是带宽的增长；I* = C/W 是用峰值除以带宽。"
    ),
    "That multiplies the two growths; I* = C/W divides them.": "这把两个增长倍数相乘了；I* = C/W 应该相除。",
    "That is W/C's growth, upside down: I* = C/W.": "这是 W/C 的增长，分子分母颠倒了：I* = C/W。",
    "That counts one byte an element; bf16 has two.": "这是每个元素只算了一个字节；bf16 是两个字节。",
    "That uses NVIDIA's sparse peak; C is the dense one.": (
        "这用的是 NVIDIA 的稀疏峰值；C 是稠密峰值。"
    ),
    "That is W / C, upside down: I* = C / W.": "这是 W / C，分子分母颠倒了：I* = C / W。",
    "Compute outgrew bandwidth from A100 to H100 and TPU v5e to v6e; the H200 went the other way": (
        "从 A100 到 H100、从 TPU v5e 到 v6e，算力增长快于带宽；H200 则相反"
    ),
    "That counts D FLOPs: each product also needs an add.": (
        "这只数了 D 次 FLOPs：每次乘法还需要一次加法。"
    ),
    # -- book/03_roofline_chart.md
    "That is the roof; below the H100's I* the matmul reaches only I/I* of it.": (
        "这是屋顶；在 H100 的 I* 以下，这个矩阵乘法只能达到它的 I/I*。"
    ),
    "That is I* / I, upside down: the fraction is I / I*.": (
        "这是 I* / I，分子分母颠倒了：比例是 I / I*。"
    ),
    "That is the H100's: the H200's HBM is faster.": "这是 H100 的值：H200 的 HBM 更快。",
    "dot product": "点积",
    "Only the 4096-token matmul is compute-bound on all three chips": (
        "只有 4096 个 token 的矩阵乘法在三块芯片上都计算受限"
    ),
    # -- book/04_matmul.md
    "That counts BDF FLOPs; each multiply-add is two.": "这只数了 BDF 次 FLOPs；每次乘加是两次。",
    "That halves I*; in bf16 I ≈ B, so B* = I* = C/W.": (
        "这把 I* 减半了；在 bf16 下 I ≈ B，所以 B* = I* = C/W。"
    ),
    "That is W / C, upside down: B* = I* = C / W.": "这是 W / C，分子分母颠倒了：B* = I* = C / W。",
    "the guide's ~569 divides the rounded 9.1 × 10¹⁴ FLOP/s by 1.6 TB/s": (
        "学习指南的 ~569 是用四舍五入后的 9.1 × 10¹⁴ FLOP/s 除以 1.6 TB/s"
    ),
    "That doubles the time as if FLOPs set it at both sizes; at the smaller B the bytes do.": (
        "这把时间翻倍了，好像两种大小下时间都由 FLOPs 决定；在较小的 B 下，时间由字节决定。"
    ),
    "That is the bytes' growth, as if both were memory-bound; the larger B crosses the ridge.": (
        "这是字节数的增长，好像两者都内存带宽受限；较大的 B 越过了拐点。"
    ),
    "That is I ≈ B, which drops the bytes of X and Z: use the exact count.": (
        "这是 I ≈ B，它忽略了 X 和 Z 的字节：请用精确计数。"
    ),
    "A matmul's intensity is about B: a TPU v6e needs {ratio}× the batch of an H100": (
        "矩阵乘法的算术强度约为 B：TPU v6e 需要 H100 的 {ratio} 倍批大小"
    ),
    "square tiles, $b_B = b_F$": "方形分块，$b_B = b_F$",
    "Tile size $b_F$ (elements)": "分块大小 $b_F$（元素数）",
    "Tile intensity (FLOPs per byte loaded)": "分块算术强度（FLOPs/载入字节）",
    "Square tiles give $b_F/2$: a TPU v5e needs {v5e}-wide tiles, an H100 {h100} (or a cache)": (
        "方形分块的强度为 $b_F/2$：\nTPU v5e 需 {v5e} 宽的分块，H100 需 {h100}（或用缓存）"
    ),
    # -- book/05_network.md
    "That divides the whole matmul's FLOPs; each chip does its half, 2B(D/N)F.": (
        "这用的是整个矩阵乘法的 FLOPs；每块芯片只做自己的一半，2B(D/N)F。"
    ),
    "That counts each chip's bytes twice, sent and received; a link carries both ways at once.": (
        "这把每块芯片的字节算了两次（发送和接收）；链路同时双向传输。"
    ),
    "That is B, the HBM rule I ≈ B; over the network B cancels and D/N remains.": (
        "这是 B，即 HBM 的规则 I ≈ B；在网络上 B 被约掉，剩下 D/N。"
    ),
    (
        "That is the HBM roofline's rule, I ≈ B; over the network the bytes sent grow with B as fast as "
        "the FLOPs."
    ): ("这是 HBM roofline 的规则 I ≈ B；在网络上，发送的字节与 FLOPs 一样随 B 增长。"),
    "That halves it; the FLOPs and the bytes sent both double.": "这是减半了；FLOPs 和发送的字节都翻倍。",
    (
        "That is C/W, half the threshold: it divides by {doubled} (one port counted both ways, or "
        "two ports), or drops the 2 bytes each D-element sends. Two chips share one link, {port} "
        "one way."
    ): (
        "这是 C/W，阈值的一半：它除以了 {doubled}（把一个端口按双向计，或算了两个端口），或漏掉了"
        "每个 D 元素发送的 2 个字节。两块芯片共用一条链路，单向 {port}。"
    ),
    (
        "That divides by Google's {total}: all four ports, both ways. Two chips share "
        "one link, {port} one way."
    ): "这是除以 Google 的 {total}：四个端口、双向合计。两块芯片共用一条链路，单向 {port}。",
    "Smallest compute-bound shard D/N\n(bf16, two chips: φ = 1)": (
        "计算受限的最小分片 D/N\n（bf16，两块芯片：φ = 1）"
    ),
    "inside a node or pod": "节点或 pod 内",
    "between nodes (InfiniBand)": "节点之间（InfiniBand）",
    "An H100 needs {ratio}× wider shards over InfiniBand than over NVLink": (
        "H100 走 InfiniBand 时所需的分片是走 NVLink 时的 {ratio} 倍宽"
    ),
    # -- book/06_low_precision.md
    "That compares 2B with the bf16 I*; int8 arithmetic doubles I* too.": (
        "这是拿 2B 和 bf16 的 I* 比较；int8 运算也让 I* 翻倍。"
    ),
    "That is bf16's B*; the int8 weights halve the bytes, so I ≈ 2B and B* = I*/2.": (
        "这是 bf16 的 B*；int8 权重让字节减半，所以 I ≈ 2B，B* = I*/2。"
    ),
    "That is I* in int8; here the multiply-adds run in bf16.": "这是 int8 下的 I*；这里的乘加以 bf16 进行。",
    "Cloud TPU v5e documentation": "Cloud TPU v5e 文档",
    "That is I* in int8; the int8 intensity is about 2B, so B* = I*/2.": (
        "这是 int8 下的 I*；int8 的算术强度约为 2B，所以 B* = I*/2。"
    ),
    "W8A16: bf16 × int8 weights": "W8A16：bf16 × int8 权重",
    "int8 peak (dense)": "int8 峰值（稠密）",
    "bf16 peak (dense)": "bf16 峰值（稠密）",
    "Achievable throughput (FLOP/s or OP/s)": "可达吞吐（FLOP/s 或 OP/s）",
    (
        "int8 doubles slope and roof; W8A16 doubles only the slope\n(TPU v5e, D = F = 8192, "
        "exact bytes)"
    ): ("int8 使斜坡和屋顶都翻倍；W8A16 只使斜坡翻倍\n（TPU v5e，D = F = 8192，精确字节数）"),
    # -- book/07_problems.md
    "bf16 peak {value}": "bf16 峰值 {value}",
    (
        "int8 weights, bf16 activations: the smaller matmul needs a larger batch\nto reach the "
        "peak (Problem 2's chip, exact bytes)"
    ): (
        "int8 权重、bf16 激活：较小的矩阵乘法需要更大的批\n才能达到峰值（习题 2 的芯片，精确字节"
        "数）"
    ),
    "standard": "标准",
    "flash, M = {M}": "flash，M = {M}",
    "H100 SXM critical intensity ≈ {value}": "H100 SXM 临界算术强度 ≈ {value}",
    "Sequence length S (tokens)": "序列长度 S（token 数）",
    "Arithmetic intensity (FLOPs per HBM byte)": "算术强度（每 HBM 字节的 FLOPs）",
    (
        "Standard attention never reaches the H100's ridge; flash attention\ndoes once its tiles "
        "hold enough query rows (d = {d}, bf16)"
    ): (
        "标准注意力永远到不了 H100 的拐点；FlashAttention\n只要分块容纳足够多的查询行就能到达（d = "
        "{d}，bf16）"
    ),
    # -- book/08_mfu.md
    "That is the backward pass only; add the forward's 2P: 6P.": "这只是反向传播；再加上前向的 2P：6P。",
    "That counts the input embedding table too; it is looked up, not multiplied.": (
        "这把输入嵌入表也算进去了；它是查表，不做乘法。"
    ),
    "That rounds P to the guide's 70 billion; the question's P is {p} billion.": (
        "这把 P 取成了学习指南的 700 亿；题目中的 P 是 {p} × 10⁹。"
    ),
    "that is with the guide's round 70 billion for P; the model's own P gives {mfu}.": (
        "这是用学习指南的整数 700 亿作为 P 得到的；用模型自己的 P 得到 {mfu}。"
    ),
    "That is the roof, as over NVLink; InfiniBand's ridge lies far past D/N.": (
        "这是屋顶，和走 NVLink 时一样；InfiniBand 的拐点远在 D/N 之外。"
    ),
    "Datasheet peak": "数据手册峰值",
    "Matmuls, H100/B200": "矩阵乘法，H100/B200",
    "Matmuls, TPUs": "矩阵乘法，TPU",
    "Llama 3 405B run": "Llama 3 405B 训练",
    "MegaScale 175B run": "MegaScale 175B 训练",
    "PaLM-540B run": "PaLM-540B 训练",
    "Share of the chips' dense peak FLOP/s (%)": "占芯片稠密峰值 FLOP/s 的比例（%）",
    (
        "Matmuls reach {matmuls} of the peak; published large runs, {runs}\n(reported figures, "
        "not computed)"
    ): ("矩阵乘法可达峰值的 {matmuls}；已发表的大规模训练为 {runs}\n（报告值，非计算所得）"),
    "That is the forward pass only: training is 6P per token.": (
        "这只算了前向传播：训练是每个 token 6P。"
    ),
    "That counts attention FLOPs; here MFU counts 6PB.": (
        "这把注意力的 FLOPs 也算进去了；这里的 MFU 只算 6PB。"
    ),
    "H100 SXM: the further the data travels, the more reuse it takes to stay compute-bound": (
        "H100 SXM：数据走得越远，保持计算受限所需的数据复用越多"
    ),
    "the matmul at HBM": "该矩阵乘法，HBM 层级",
    "the matmul over NVLink": "该矩阵乘法，经 NVLink",
    "the matmul over InfiniBand": "该矩阵乘法，经 InfiniBand",
    # -- book/09_inference.md
    "that is I ≈ B, counting the weights' bytes only; every byte counted gives {exact}.": (
        "这是 I ≈ B，只计权重的字节；精确计入每个字节得到 {exact}。"
    ),
    "That is one request's; here {n} share the step.": "这是一个请求的值；这里有 {n} 个请求共享这一步。",
    "that is the threshold for this shape, D = F = {d}, with every byte counted.": (
        "这是这个形状（D = F = {d}）在精确计入每个字节时的阈值。"
    ),
    (
        "with the weights' bytes alone (I ≈ B) the time does not change; counting the activations it "
        "grows {ratio}×."
    ): ("只计权重的字节（I ≈ B）时，时间不变；计入激活值则增长 {ratio} 倍。"),
    (
        "That doubles it as if FLOPs set the time; in decode the weights' bytes do, read once a step for "
        "every request."
    ): (
        "这把时间翻倍了，好像时间由 FLOPs 决定；在解码中时间由权重的字节决定，每步为所有请求只读一"
        "次。"
    ),
    "That halves it; more requests never make a step shorter.": "这是减半了；更多的请求不会让一步变短。",
    "That uses the sparse peak; C is dense.": "这用的是稀疏峰值；C 是稠密峰值。",
    "decode, 1 request\n(and multi-head decode attention)": (
        "解码，1 个请求\n（以及多头解码注意力）"
    ),
    "decode, {n} requests": "解码，{n} 个请求",
    "prefill, one {n}-token prompt": "预填充，一个 {n} token 的提示词",
    (
        "Prefill runs on the roof, decode on the slope\n(H100 SXM, bf16 matmul with {D} × {F} "
        "weights)"
    ): ("预填充跑在屋顶上，解码跑在斜坡上\n（H100 SXM，权重为 {D} × {F} 的 bf16 矩阵乘法）"),
    "Its theoretical {dtype} peak is {peak} ({formula}); the measured peak is {percent} of it.": (
        "它的理论 {dtype} 峰值为 {peak}（{formula}）；实测峰值是它的 {percent}。"
    ),
    (
        "No theoretical peak could be derived for this hardware, so the measured peak is the "
        "only roof on the chart."
    ): ("无法推算这台硬件的理论峰值，因此图中唯一的屋顶是实测峰值。"),
    "intensity (FLOPs/byte)": "算术强度（FLOPs/byte）",
    "predicted": "预测",
    "achieved (median)": "实测（中位数）",
    "achieved / predicted": "实测 / 预测",
    (
        "The run passed its three checks of a roofline (no matmul's slowest repeat above "
        "{above}× its roof, a peak of at least {peak} of the theoretical one, at least {share} of "
        "the CPU time), so this machine's critical intensity is {crit} FLOPs/byte and the chart "
        "below is its roofline."
    ): (
        "这次运行通过了 roofline 的全部三项检查（没有哪个矩阵乘法最慢的一次重复超过其屋顶的 "
        "{above}×，峰值至少是理论峰值的 {peak}，至少得到了 {share} 的 CPU 时间），所以这台机器的"
        "临界算术强度为 {crit} FLOPs/byte，下图就是它的 roofline。"
    ),
    (
        "Memory-bound matmuls were not held to the memory roof: their weights fit in the cache, "
        "which the triad does not measure."
    ): (
        "内存带宽受限的矩阵乘法不按内存屋顶检查：它们的权重装得进缓存，而 triad 测不到缓存的带宽。"
    ),
    (
        "Across the sweep the measurement reaches between {worst} (at B = {worst_b}) and {best} "
        "(at B = {best_b}) of the prediction."
    ): ("整个扫描中，实测达到预测值的 {worst}（B = {worst_b}）到 {best}（B = {best_b}）。"),
    "The time budget left no room for the sweep.": "时间预算不够做扫描。",
    "This build's measurement is not a roofline": "本次构建的测量结果不是 roofline",
    "It failed its own checks:": "它没有通过自身的检查：",
    (
        "So the chart and the table below show only what it measured, with no roof and no "
        "predictions: a roof that its matmuls outrun would teach the opposite of this chapter. "
        "A build on an idle machine draws the roofline here."
    ): (
        "所以下面的图和表只给出它测到的数据，不画屋顶，也不给预测值：一个被矩阵乘法远远超过的"
        "“屋顶”，教给读者的会与本章恰恰相反。在空闲机器上构建时，这里会画出 roofline。"
    ),
    "range of repeats": "重复测量的范围",
    "This run has no roof to hold its sweep to.": "这次运行没有可以用来衡量扫描结果的屋顶。",
    "The run recorded no caveats.": "这次运行没有记录任何注意事项。",
    # -- book/10_problems_whole_model.md
    # -- book/intro.md
    "matmul, B = {B}": "矩阵乘法，B = {B}",
    "Only the {B}-token matmul reaches the H100's roof; the others wait for memory": (
        "只有 {B} 个 token 的矩阵乘法能触到 H100 的屋顶；其余的都在等内存"
    ),
    # -- the tables the book's code cells write (book/*.md, glued with {glue:md}: not in the
    # catalogs, so a new chip or a changed figure needs no translation)
    "Dense bf16 peak $C$": "bf16 稠密峰值 $C$",
    "As printed (source)": "原文（出处）",
    "Basis": "依据",
    "$I^* = C/W$ (FLOPs/byte)": "$I^* = C/W$（FLOPs/byte）",
    "HBM bandwidth $W$": "HBM 带宽 $W$",
    "Peak basis": "峰值口径",
    "{regime}, {percent} of peak": "{regime}，达到峰值的 {percent}",
    "training: $B$ = {batch}": "训练：$B$ = {batch}",
    "generation: $B$ = {batch}": "生成：$B$ = {batch}",
    "N chips": "芯片数 N",
    "reduce-scatter": "ReduceScatter",
    "all-reduce": "AllReduce",
    "level (source)": "层级（来源）",
    "bandwidth, one-way": "单向带宽",
    "basis": "依据",
    "critical intensity": "临界算术强度",
    "TTFT, roofline bound ≥ (ms)": "TTFT，roofline 下界 ≥（ms）",
    "TTFT, per-operation estimate (ms)": "TTFT，逐算子估计（ms）",
    "inter-token, roofline bound ≥ (ms)": "token 间延迟，roofline 下界 ≥（ms）",
    "inter-token, per-operation estimate (ms)": "token 间延迟，逐算子估计（ms）",
    "tokens/s ≤, all chips": "吞吐 ≤（tokens/s），全部芯片合计",
    "tokens/s ≤, per chip": "吞吐 ≤（tokens/s），每芯片",
    "critical B": "临界 B",
    "largest B": "最大 B",
    "requests B": "请求数 B",
    "all bf16": "全部 bf16",
    "int8 weights": "int8 权重",
    "int8 weights and KV": "int8 权重和 KV",
    "fp8 (all-reduces in bf16)": "fp8（AllReduce 用 bf16）",
    "dtypes": "数据类型",
    "weights per chip (GB)": "每芯片权重（GB）",
    "KV per token (kB)": "每 token 的 KV（kB）",
    "link": "链路",
    "decode $T_\\text{net}$ (ms)": "解码 $T_\\text{net}$（ms）",
    "prefill $T_\\text{net}$ (ms)": "预填充 $T_\\text{net}$（ms）",
    "{replicas} × TP {tp}": "{replicas} 组 TP {tp}",
    "{n} × H100, {split}, {dtype}": "{n} × H100，{split}，{dtype}",
    "{chips}; up to {batch} requests per pair": "{chips}；每对 GPU 最多 {batch} 个请求",
    "{chips}; about {batch} requests per pair": "{chips}；每对 GPU 约 {batch} 个请求",
    "{time} ms per token": "每 token {time} ms",
    "{chips}; static batch of {batch}, {inputs} in, {outputs} out": (
        "{chips}；静态批 {batch} 个请求，输入 {inputs}、输出 {outputs}"
    ),
    "{bound} ({with_prefill} with prefill)": "{bound}（计入预填充为 {with_prefill}）",
    "{chips}; one {tokens}-token prompt": "{chips}；一个 {tokens} token 的提示词",
    "source (Llama 2 70B)": "来源（Llama 2 70B）",
    "workload": "工作负载",
    "measured": "实测",
    "roofline bound": "roofline 下界",
    "share of the bound": "达到下界的比例",
    "W, one way per GPU": "W，每块 GPU 单向",
    "critical D, N = {n}": "临界 D，N = {n}",
}
