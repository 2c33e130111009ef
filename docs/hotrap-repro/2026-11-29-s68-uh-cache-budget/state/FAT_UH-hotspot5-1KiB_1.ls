dir             0  1 -     -   -     /.hintfs-index/
file        11494  1 data  -   fast  /.hintfs-index/00000000000006e0 0:10+11494
file        11505  1 data  -   fast  /.hintfs-index/00000000000006e1 0:10+11505
file        11520  1 data  -   fast  /.hintfs-index/00000000000006e6 0:10+10688 0:24+832
file        11509  1 data  -   fast  /.hintfs-index/00000000000006e8 0:24+11509
file        11507  1 data  -   fast  /.hintfs-index/00000000000006eb 0:24+11507
file         9237  1 data  -   fast  /.hintfs-index/00000000000006f6 0:24+5942 0:24+3295
file        11502  1 data  -   fast  /.hintfs-index/0000000000000720 0:10+9763 0:10+1739
file        11511  1 data  -   fast  /.hintfs-index/0000000000000721 0:10+11511
file        11516  1 data  -   fast  /.hintfs-index/0000000000000729 0:10+11516
file        11531  1 data  -   fast  /.hintfs-index/000000000000072d 0:10+1757 0:10+9774
file        11504  1 data  -   fast  /.hintfs-index/0000000000000732 0:10+11504
file         2122  1 data  -   fast  /.hintfs-index/0000000000000737 0:10+802 0:10+1320
file        11516  1 data  -   fast  /.hintfs-index/000000000000078a 0:10+8136 0:10+3380
file        11514  1 data  -   fast  /.hintfs-index/0000000000000848 0:24+11514
file        11533  1 data  -   fast  /.hintfs-index/000000000000084b 0:24+1976 0:24+9557
file        11514  1 data  -   fast  /.hintfs-index/000000000000084f 0:24+11514
file        22961  1 data  -   fast  /.hintfs-index/00000000000008dc 0:24+7873 0:24+15088
file          597  1 data  -   fast  /.hintfs-index/00000000000008f1 0:10+597
file        11522  1 data  -   fast  /.hintfs-index/000000000000094f 0:24+11522
file        11523  1 data  -   fast  /.hintfs-index/0000000000000950 0:24+11523
file         4130  1 data  -   fast  /.hintfs-index/0000000000000954 0:24+4130
file        18021  1 data  -   fast  /.hintfs-index/0000000000000959 0:24+18021
file        11519  1 data  -   fast  /.hintfs-index/000000000000095a 0:24+11519
file        11529  1 data  -   fast  /.hintfs-index/0000000000000960 0:24+11529
file        11533  1 data  -   fast  /.hintfs-index/0000000000000967 0:24+11533
file         8192  1 data  -   fast  /.hintfs-index/0000000000000969 0:24+8192
file        11541  1 data  -   fast  /.hintfs-index/00000000000009c6 0:24+11541
file        11535  1 data  -   slow  /.hintfs-index/00000000000009c8 1:14+11535
file        11537  1 data  -   slow  /.hintfs-index/00000000000009cd 1:15+11537
file        11516  1 data  -   slow  /.hintfs-index/00000000000009d2 1:15+11516
file        11525  1 data  -   slow  /.hintfs-index/00000000000009d7 1:15+11525
file         8788  1 data  -   slow  /.hintfs-index/00000000000009d9 1:15+8788
file        11541  1 data  -   fast  /.hintfs-index/00000000000009ee 0:24+11541
file        11540  1 data  -   fast  /.hintfs-index/00000000000009f1 0:24+5209 0:24+6331
file        11535  1 data  -   fast  /.hintfs-index/00000000000009f7 0:24+11535
file        11544  1 data  -   fast  /.hintfs-index/00000000000009fa 0:24+11544
file        11533  1 data  -   slow  /.hintfs-index/0000000000000a08 1:15+11533
file        11550  1 data  -   slow  /.hintfs-index/0000000000000a0f 1:15+11550
file         3209  1 data  -   slow  /.hintfs-index/0000000000000a15 1:15+3209
file         8025  1 data  -   slow  /.hintfs-index/0000000000000a1e 1:15+8025
file        11543  1 data  -   fast  /.hintfs-index/0000000000000a83 0:24+11543
file         4156  1 data  -   fast  /.hintfs-index/0000000000000a8e 0:24+4156
file        11558  1 data  -   fast  /.hintfs-index/0000000000000afa 0:24+11558
file        11542  1 data  -   fast  /.hintfs-index/0000000000000afb 0:24+2653 0:24+8889
file        17071  1 data  -   fast  /.hintfs-index/0000000000000afe 0:24+17071
file        11563  1 data  -   fast  /.hintfs-index/0000000000000b05 0:24+4885 0:24+6678
file        11556  1 data  -   fast  /.hintfs-index/0000000000000b06 0:24+11556
file        11558  1 data  -   fast  /.hintfs-index/0000000000000b0a 0:24+11558
file        11571  1 data  -   fast  /.hintfs-index/0000000000000b10 0:24+5463 0:24+6108
file        11551  1 data  -   fast  /.hintfs-index/0000000000000b18 0:24+11551
file        11419  1 data  -   fast  /.hintfs-index/0000000000000b22 0:24+11419
file        11589  1 data  -   slow  /.hintfs-index/0000000000000c1f 1:15+11589
file        11565  1 data  -   slow  /.hintfs-index/0000000000000c2a 1:15+11565
file        11562  1 data  -   slow  /.hintfs-index/0000000000000c30 1:15+11562
file        11560  1 data  -   slow  /.hintfs-index/0000000000000c35 1:15+11560
file        10691  1 data  -   slow  /.hintfs-index/0000000000000c38 1:15+10691
file        11563  1 data  -   fast  /.hintfs-index/0000000000000c58 0:24+11563
file        11591  1 data  -   fast  /.hintfs-index/0000000000000c59 0:24+5969 0:24+5622
file        11581  1 data  -   fast  /.hintfs-index/0000000000000c65 0:24+775 0:10+10806
file        11571  1 data  -   fast  /.hintfs-index/0000000000000c6f 0:10+10210 0:10+1361
file        11572  1 data  -   fast  /.hintfs-index/0000000000000c79 0:10+11572
file        11567  1 data  -   fast  /.hintfs-index/0000000000000c7a 0:10+5512 0:10+6055
file        11577  1 data  -   fast  /.hintfs-index/0000000000000c7f 0:10+11577
file        11571  1 data  -   fast  /.hintfs-index/0000000000000c87 0:10+11571
file          598  1 data  -   fast  /.hintfs-index/0000000000000c8b 0:10+598
file         5254  1 data  -   fast  /.hintfs-index/0000000000000cd6 0:10+5254
file        11587  1 data  -   fast  /.hintfs-index/0000000000000d02 0:10+6582 0:10+5005
file        11596  1 data  -   fast  /.hintfs-index/0000000000000d08 0:10+11596
file        11570  1 data  -   fast  /.hintfs-index/0000000000000d0d 0:10+11570
file        11571  1 data  -   fast  /.hintfs-index/0000000000000d13 0:10+11571
file        11576  1 data  -   fast  /.hintfs-index/0000000000000d19 0:10+10943 0:10+633
file        11566  1 data  -   fast  /.hintfs-index/0000000000000d27 0:10+11566
file        11591  1 data  -   fast  /.hintfs-index/0000000000000d2b 0:10+11591
file         2870  1 data  -   fast  /.hintfs-index/0000000000000d2f 0:10+2870
file        11593  1 data  -   fast  /.hintfs-index/0000000000000dd4 0:24+11593
file        11620  1 data  -   fast  /.hintfs-index/0000000000000dd7 0:24+11620
file        11623  1 data  -   fast  /.hintfs-index/0000000000000ddf 0:24+11623
file        11591  1 data  -   fast  /.hintfs-index/0000000000000de3 0:24+11591
file        14206  1 data  -   fast  /.hintfs-index/0000000000000de6 0:24+14206
file        11604  1 data  -   fast  /.hintfs-index/0000000000000dea 0:24+11604
file         6614  1 data  -   fast  /.hintfs-index/0000000000000df0 0:24+6614
file        11620  1 data  -   fast  /.hintfs-index/0000000000000e18 0:24+9990 0:24+1630
file        11597  1 data  -   fast  /.hintfs-index/0000000000000e1a 0:24+11597
file        11607  1 data  -   fast  /.hintfs-index/0000000000000e1e 0:24+11607
file        11604  1 data  -   fast  /.hintfs-index/0000000000000e21 0:24+11604
file        11589  1 data  -   fast  /.hintfs-index/0000000000000e25 0:24+6636 0:24+4953
file        11594  1 data  -   fast  /.hintfs-index/0000000000000e26 0:24+11594
file        11592  1 data  -   fast  /.hintfs-index/0000000000000e2a 0:24+11592
file        11590  1 data  -   fast  /.hintfs-index/0000000000000e2d 0:24+11590
file        11600  1 data  -   fast  /.hintfs-index/0000000000000e30 0:24+11600
file        11584  1 data  -   fast  /.hintfs-index/0000000000000e32 0:24+11584
file        11582  1 data  -   fast  /.hintfs-index/0000000000000e39 0:24+11582
file        11601  1 data  -   fast  /.hintfs-index/0000000000000e3b 0:24+11601
file         1717  1 data  -   fast  /.hintfs-index/0000000000000e43 0:24+1717
file        11588  1 data  -   fast  /.hintfs-index/0000000000000e45 0:24+11588
file        11599  1 data  -   fast  /.hintfs-index/0000000000000e6e 0:24+6729 0:24+4870
file        11582  1 data  -   fast  /.hintfs-index/0000000000000e72 0:24+11582
file        11597  1 data  -   fast  /.hintfs-index/0000000000000e78 0:24+5863 0:24+5734
file        11598  1 data  -   fast  /.hintfs-index/0000000000000e7c 0:24+11598
file        11595  1 data  -   fast  /.hintfs-index/0000000000000e7f 0:24+11595
file        11585  1 data  -   fast  /.hintfs-index/0000000000000e81 0:24+6074 0:24+5511
file         7425  1 data  -   fast  /.hintfs-index/0000000000000e86 0:24+7425
file        11590  1 data  -   fast  /.hintfs-index/0000000000000ea3 0:24+11590
file        11615  1 data  -   fast  /.hintfs-index/0000000000000ea9 0:24+3316 0:24+2160 0:24+6139
file        11600  1 data  -   fast  /.hintfs-index/0000000000000eb3 0:24+11600
file        11592  1 data  -   slow  /.hintfs-index/0000000000000ec2 1:2+11592
file        11588  1 data  -   fast  /.hintfs-index/0000000000000eca 0:10+11588
file        11577  1 data  -   fast  /.hintfs-index/0000000000000ecb 0:10+6016 0:10+1570 0:10+3991
file        11607  1 data  -   fast  /.hintfs-index/0000000000000ecd 0:10+6046 0:10+5561
file        11601  1 data  -   fast  /.hintfs-index/0000000000000ecf 0:10+11601
file        11605  1 data  -   fast  /.hintfs-index/0000000000000ed7 0:10+11605
file        11584  1 data  -   fast  /.hintfs-index/0000000000000edb 0:10+11584
file         7016  1 data  -   fast  /.hintfs-index/0000000000000ede 0:10+7016
file        11595  1 data  -   fast  /.hintfs-index/0000000000000ee0 0:10+11595
file         5794  1 data  -   fast  /.hintfs-index/0000000000000f3a 0:24+5794
file        11600  1 data  -   fast  /.hintfs-index/0000000000000f68 0:10+11600
file        11605  1 data  -   fast  /.hintfs-index/0000000000000f6c 0:10+11605
file        11612  1 data  -   fast  /.hintfs-index/0000000000000f74 0:10+11612
file        11595  1 data  -   fast  /.hintfs-index/0000000000000f7b 0:24+1579 0:24+10016
file        11607  1 data  -   fast  /.hintfs-index/0000000000000f81 0:24+11607
file         8693  1 data  -   fast  /.hintfs-index/0000000000000f82 0:24+8693
file         8193  1 data  -   fast  /.hintfs-index/0000000000000f86 0:24+8193
file        11596  1 data  -   fast  /.hintfs-index/000000000000104b 0:10+5413 0:10+6183
file         3044  1 data  -   fast  /.hintfs-index/000000000000104f 0:10+3044
file        11603  1 data  -   fast  /.hintfs-index/0000000000001060 0:10+11603
file          700  1 data  -   fast  /.hintfs-index/0000000000001061 0:10+700
file         6395  1 data  -   fast  /.hintfs-index/0000000000001065 0:10+6395
file        11610  1 data  -   fast  /.hintfs-index/00000000000010d7 0:24+11610
file        11604  1 data  -   fast  /.hintfs-index/00000000000010d8 0:24+11604
file        11007  1 data  -   fast  /.hintfs-index/00000000000010da 0:24+11007
file         9680  1 data  -   fast  /.hintfs-index/00000000000010ea 0:24+9680
file        11598  1 data  -   fast  /.hintfs-index/0000000000001111 0:24+5494 0:24+6104
file        11616  1 data  -   fast  /.hintfs-index/0000000000001118 0:24+4623 0:24+6258 0:24+735
file          533  1 data  -   fast  /.hintfs-index/000000000000111a 0:24+533
file        10864  1 data  -   fast  /.hintfs-index/0000000000001122 0:24+9802 0:24+1062
file        11613  1 data  -   fast  /.hintfs-index/000000000000112d 0:24+11613
file        11593  1 data  -   fast  /.hintfs-index/0000000000001130 0:24+11593
file        11607  1 data  -   fast  /.hintfs-index/0000000000001132 0:24+11607
file        11609  1 data  -   fast  /.hintfs-index/0000000000001134 0:24+11609
file        11604  1 data  -   fast  /.hintfs-index/0000000000001136 0:24+11604
file        11616  1 data  -   fast  /.hintfs-index/0000000000001189 0:24+11616
file        11607  1 data  -   fast  /.hintfs-index/000000000000118b 0:24+11607
file        11616  1 data  -   fast  /.hintfs-index/000000000000118c 0:24+11616
file        11614  1 data  -   fast  /.hintfs-index/000000000000118e 0:24+11614
file        11582  1 data  -   fast  /.hintfs-index/0000000000001191 0:24+11582
file        11607  1 data  -   fast  /.hintfs-index/0000000000001193 0:24+11607
file         8508  1 data  -   fast  /.hintfs-index/0000000000001194 0:24+8508
file        11597  1 data  -   fast  /.hintfs-index/00000000000011ce 0:10+11597
file        11608  1 data  -   fast  /.hintfs-index/00000000000011cf 0:10+11608
file        11610  1 data  -   fast  /.hintfs-index/00000000000011d1 0:10+11610
file        11609  1 data  -   fast  /.hintfs-index/00000000000011d4 0:10+11609
file        11613  1 data  -   fast  /.hintfs-index/00000000000011d7 0:10+11613
file        11607  1 data  -   fast  /.hintfs-index/000000000000126f 0:24+11607
file        11604  1 data  -   fast  /.hintfs-index/0000000000001270 0:24+11604
file        11601  1 data  -   fast  /.hintfs-index/0000000000001273 0:24+7660 0:24+3941
file        11609  1 data  -   fast  /.hintfs-index/0000000000001274 0:24+11609
file        11621  1 data  -   fast  /.hintfs-index/0000000000001276 0:24+7511 0:24+4110
file         9612  1 data  -   fast  /.hintfs-index/000000000000127b 0:24+9612
file        20160  1 data  -   fast  /.hintfs-index/00000000000012be 0:24+20160
file        11621  1 data  -   fast  /.hintfs-index/0000000000001310 0:24+11621
file        11615  1 data  -   fast  /.hintfs-index/0000000000001312 0:24+11615
file        11611  1 data  -   fast  /.hintfs-index/0000000000001313 0:24+11611
file        11596  1 data  -   fast  /.hintfs-index/0000000000001315 0:24+11596
file        11605  1 data  -   fast  /.hintfs-index/0000000000001317 0:24+11605
file        10482  1 data  -   fast  /.hintfs-index/000000000000131a 0:24+10482
file        16278  1 data  -   fast  /.hintfs-index/000000000000191b 0:24+16278
file         8226  1 data  -   fast  /.hintfs-index/00000000000019f9 0:10+8226
file        11622  1 data  -   fast  /.hintfs-index/00000000000019fd 0:10+11622
file        11599  1 data  -   fast  /.hintfs-index/00000000000019fe 0:10+11599
file         5253  1 data  -   fast  /.hintfs-index/0000000000001a00 0:10+5253
file        16691  1 data  -   fast  /.hintfs-index/0000000000001a9d 0:10+7265 0:10+720 0:24+8706
file        14937  1 data  -   fast  /.hintfs-index/0000000000001ac2 0:24+14937
file        14417  1 data  -   fast  /.hintfs-index/0000000000001ac4 0:24+14417
file          374  1 data  -   fast  /.hintfs-index/0000000000001b4e 0:10+374
file        14542  1 data  -   fast  /.hintfs-index/0000000000001c73 0:24+14542
file        13932  1 data  -   fast  /.hintfs-index/0000000000001c74 0:24+13932
file        11554  1 data  -   fast  /.hintfs-index/0000000000001c78 0:24+11554
file        15018  1 data  -   fast  /.hintfs-index/0000000000001c7c 0:24+15018
file        14609  1 data  -   fast  /.hintfs-index/0000000000001c7d 0:24+14609
file        22641  1 data  -   fast  /.hintfs-index/0000000000001c80 0:24+22641
file        23141  1 data  -   fast  /.hintfs-index/0000000000001d83 0:10+21179 0:10+1962
file        23147  1 data  -   fast  /.hintfs-index/0000000000001d84 0:10+23147
file        23137  1 data  -   fast  /.hintfs-index/0000000000001d88 0:10+23137
file         3328  1 data  -   fast  /.hintfs-index/0000000000001d8c 0:10+3328
file         8456  1 data  -   fast  /.hintfs-index/0000000000001e23 0:24+8456
file         8391  1 data  -   fast  /.hintfs-index/0000000000001e24 0:24+8391
file         8786  1 data  -   fast  /.hintfs-index/0000000000001e69 0:24+8786
file         8229  1 data  -   fast  /.hintfs-index/0000000000001e6a 0:24+8229
file        10605  1 data  -   fast  /.hintfs-index/0000000000001eb9 0:24+10605
file        16202  1 data  -   fast  /.hintfs-index/0000000000001ebb 0:24+16202
file         8691  1 data  -   fast  /.hintfs-index/0000000000001ebf 0:24+8691
file         8566  1 data  -   fast  /.hintfs-index/0000000000001ec1 0:24+8566
file         8428  1 data  -   fast  /.hintfs-index/0000000000001ec3 0:24+8428
file         8261  1 data  -   fast  /.hintfs-index/0000000000001ec6 0:24+8261
file         6438  1 data  -   fast  /.hintfs-index/0000000000001ec8 0:24+6438
file         8520  1 data  -   fast  /.hintfs-index/0000000000001ec9 0:24+8520
file        14657  1 data  -   fast  /.hintfs-index/0000000000001fae 0:24+14657
file        11681  1 data  -   fast  /.hintfs-index/0000000000001faf 0:24+11681
file        11195  1 data  -   fast  /.hintfs-index/0000000000001fb1 0:24+11195
file         8941  1 data  -   fast  /.hintfs-index/0000000000001fb3 0:24+8941
file         9015  1 data  -   fast  /.hintfs-index/0000000000001fb5 0:24+9015
file         9180  1 data  -   fast  /.hintfs-index/0000000000001fb7 0:24+9180
file         9387  1 data  -   fast  /.hintfs-index/0000000000001fb9 0:24+9387
file        16175  1 data  -   fast  /.hintfs-index/0000000000001fbc 0:24+16175
file         7025  1 data  -   fast  /.hintfs-index/0000000000001ff3 0:24+7025
file        13706  1 data  -   fast  /.hintfs-index/0000000000001ff4 0:24+13706
file        13517  1 data  -   fast  /.hintfs-index/0000000000001ff9 0:24+13517
file        15994  1 data  -   fast  /.hintfs-index/0000000000002069 0:10+15994
file        10174  1 data  -   fast  /.hintfs-index/0000000000002075 0:10+10174
file        19698  1 data  -   fast  /.hintfs-index/0000000000002078 0:10+19698
file        10729  1 data  -   fast  /.hintfs-index/00000000000020b3 0:10+10729
file        10045  1 data  -   fast  /.hintfs-index/00000000000020b7 0:10+10045
file        10007  1 data  -   fast  /.hintfs-index/00000000000020b9 0:10+10007
file         9892  1 data  -   fast  /.hintfs-index/00000000000020bb 0:10+9892
file        12025  1 data  -   fast  /.hintfs-index/00000000000020bd 0:10+12025
file        11599  1 data  -   fast  /.hintfs-index/00000000000020bf 0:10+11599
file        11086  1 data  -   fast  /.hintfs-index/00000000000020c2 0:10+11086
file         9989  1 data  -   fast  /.hintfs-index/00000000000020dd 0:10+9989
file         9872  1 data  -   fast  /.hintfs-index/00000000000020de 0:10+9872
file        10145  1 data  -   fast  /.hintfs-index/00000000000020e0 0:10+10145
file        13279  1 data  -   fast  /.hintfs-index/00000000000020e4 0:10+13279
file        12209  1 data  -   fast  /.hintfs-index/00000000000020e7 0:10+12209
file        11742  1 data  -   fast  /.hintfs-index/00000000000020ea 0:10+11742
file        10993  1 data  -   fast  /.hintfs-index/00000000000020eb 0:10+10993
file        12622  1 data  -   fast  /.hintfs-index/00000000000020ed 0:10+12622
file        13799  1 data  -   fast  /.hintfs-index/0000000000002127 0:10+13799
file        11723  1 data  -   fast  /.hintfs-index/0000000000002128 0:10+11723
file        10681  1 data  -   fast  /.hintfs-index/000000000000212c 0:10+10681
file         8829  1 data  -   fast  /.hintfs-index/0000000000002130 0:10+8829
file        10370  1 data  -   fast  /.hintfs-index/0000000000002131 0:10+10370
file        10182  1 data  -   fast  /.hintfs-index/0000000000002133 0:10+10182
file        12058  1 data  -   fast  /.hintfs-index/000000000000214d 0:24+12058
file        10282  1 data  -   fast  /.hintfs-index/000000000000214e 0:24+10282
file        10011  1 data  -   fast  /.hintfs-index/0000000000002150 0:24+10011
file        11991  1 data  -   fast  /.hintfs-index/0000000000002152 0:24+11991
file        10509  1 data  -   fast  /.hintfs-index/0000000000002164 0:24+10509
file        11040  1 data  -   fast  /.hintfs-index/0000000000002166 0:24+11040
file         1108  1 data  -   fast  /.hintfs-index/0000000000002168 0:24+1108
file        10667  1 data  -   fast  /.hintfs-index/000000000000216b 0:24+10667
file        10125  1 data  -   fast  /.hintfs-index/000000000000216c 0:24+10125
file        15868  1 data  -   fast  /.hintfs-index/0000000000002180 0:10+15868
file        15437  1 data  -   fast  /.hintfs-index/0000000000002181 0:10+15437
file        14288  1 data  -   fast  /.hintfs-index/0000000000002183 0:10+14288
file        16714  1 data  -   fast  /.hintfs-index/0000000000002186 0:10+16714
file        14838  1 data  -   fast  /.hintfs-index/0000000000002188 0:10+14838
file        10506  1 data  -   fast  /.hintfs-index/000000000000218a 0:10+10506
file         7037  1 data  -   fast  /.hintfs-index/00000000000021ab 0:10+7037
file        12549  1 data  -   fast  /.hintfs-index/00000000000021ae 0:10+12549
file        14314  1 data  -   fast  /.hintfs-index/00000000000021af 0:10+14314
file        10943  1 data  -   fast  /.hintfs-index/00000000000021b2 0:10+10943
file        11266  1 data  -   fast  /.hintfs-index/00000000000021b4 0:10+11266
file        11057  1 data  -   fast  /.hintfs-index/00000000000021b6 0:10+11057
file        10514  1 data  -   fast  /.hintfs-index/00000000000021b8 0:10+10514
file        10660  1 data  -   fast  /.hintfs-index/00000000000021ba 0:10+10660
file         4361  1 data  -   fast  /.hintfs-index/00000000000021bc 0:10+4361
file        10808  1 data  -   fast  /.hintfs-index/00000000000021c1 0:10+10808
dir             0  1 -     -   -     /db/
file      2014548  1 table L4  slow  /db/000991.sst 1:72+2014548
file      2014540  1 table L4  slow  /db/000992.sst 1:74+2014540
file      2014528  1 table L4  slow  /db/000994.sst 1:81+2014528
file      2014567  1 table L4  slow  /db/000995.sst 1:3+2014567
file      2014528  1 table L4  slow  /db/000996.sst 1:82+2014528
file      1617007  1 table L4  slow  /db/001001.sst 1:25+1617007
file      2014523  1 table L4  slow  /db/001025.sst 1:47+2014523
file      2014530  1 table L4  slow  /db/001026.sst 1:52+2014530
file      2014563  1 table L4  slow  /db/001030.sst 1:57+2014563
file      2014528  1 table L4  slow  /db/001032.sst 1:61+2014528
file      2014548  1 table L4  slow  /db/001035.sst 1:90+2014548
file       363282  1 table L4  slow  /db/001037.sst 1:93+363282
file      2014589  1 table L4  slow  /db/001083.sst 1:73+2014589
file      2014552  1 table L4  slow  /db/001185.sst 1:101+2014552
file      2014659  1 table L4  slow  /db/001188.sst 1:9+2014659
file      2014671  1 table L4  slow  /db/001190.sst 1:34+2014671
file      4027864  1 table L4  slow  /db/001268.sst 1:97+2080256 1:28+1077248 1:141+870360
file        95368  1 table L4  slow  /db/001279.sst 1:149+95368
file      2014751  1 table L4  slow  /db/001331.sst 1:125+2014751
file      2014773  1 table L4  slow  /db/001332.sst 1:129+2014773
file       715919  1 table L4  slow  /db/001334.sst 1:8+715919
file      3155988  1 table L4  slow  /db/001336.sst 1:11+2080256 1:29+1016320 1:32+59412
file      2014772  1 table L4  slow  /db/001337.sst 1:22+2014772
file      2014762  1 table L4  slow  /db/001339.sst 1:135+2014762
file      2014749  1 table L4  slow  /db/001342.sst 1:161+2014749
file      1427468  1 table L4  slow  /db/001343.sst 1:162+1427468
file      2014794  1 table L4  slow  /db/001396.sst 1:99+2014794
file      2014797  1 table L4  slow  /db/001398.sst 1:105+2014797
file      2014795  1 table L4  slow  /db/001400.sst 1:6+2014795
file      2014781  1 table L4  slow  /db/001402.sst 1:24+2014781
file      2014818  1 table L4  slow  /db/001404.sst 1:111+2014818
file      1532529  1 table L4  slow  /db/001405.sst 1:130+1532529
file      2014803  1 table L4  slow  /db/001417.sst 1:78+2014803
file      2014797  1 table L4  slow  /db/001420.sst 1:36+2014797
file      2014809  1 table L4  slow  /db/001424.sst 1:91+2014809
file      2014839  1 table L4  slow  /db/001426.sst 1:121+2014839
file      2014805  1 table L4  slow  /db/001431.sst 1:166+2014805
file      2014824  1 table L4  slow  /db/001434.sst 1:170+2014824
file       554123  1 table L4  slow  /db/001437.sst 1:174+554123
file      1399638  1 table L4  slow  /db/001441.sst 1:177+1399638
file      2014856  1 table L4  slow  /db/001499.sst 1:80+2014856
file       720232  1 table L4  slow  /db/001506.sst 1:115+720232
file      2014867  1 table L4  slow  /db/001563.sst 1:69+2014867
file      2014853  1 table L4  slow  /db/001564.sst 1:64+2014853
file      2980240  1 table L4  slow  /db/001567.sst 1:106+2080256 1:67+899984
file      2014881  1 table L4  slow  /db/001569.sst 1:145+2014881
file      2014853  1 table L4  slow  /db/001570.sst 1:127+2014853
file      2014856  1 table L4  slow  /db/001573.sst 1:184+2014856
file      2014879  1 table L4  slow  /db/001576.sst 1:185+2014879
file      2014864  1 table L4  slow  /db/001579.sst 1:187+2014864
file      1988137  1 table L4  slow  /db/001584.sst 1:192+1988137
file      2014925  1 table L4  slow  /db/001722.sst 1:197+2014925
file      2014913  1 table L4  slow  /db/001727.sst 1:202+2014913
file      2014921  1 table L4  slow  /db/001730.sst 1:1+2014921
file      2014899  1 table L4  slow  /db/001732.sst 1:194+2014899
file      1857381  1 table L4  slow  /db/001734.sst 1:206+1857381
file      2014937  1 table L4  slow  /db/001752.sst 1:23+2014937
file      2014951  1 table L4  slow  /db/001753.sst 1:30+2014951
file      2014926  1 table L4  slow  /db/001761.sst 1:65+2014926
file      2014949  1 table L4  slow  /db/001766.sst 1:108+2014949
file      2014926  1 table L4  slow  /db/001769.sst 1:143+2014926
file      2014918  1 table L4  slow  /db/001770.sst 1:159+2014918
file      2014947  1 table L4  slow  /db/001773.sst 1:181+2014947
file      2014946  1 table L4  slow  /db/001776.sst 1:203+2014946
file        94312  1 table L4  slow  /db/001778.sst 1:208+94312
file       908871  1 table L3  slow  /db/001818.sst 1:196+908871
file      2014942  1 table L4  slow  /db/001844.sst 1:75+2014942
file      2014956  1 table L4  slow  /db/001847.sst 1:112+2014956
file      2014934  1 table L4  slow  /db/001850.sst 1:128+2014934
file      2014925  1 table L4  slow  /db/001853.sst 1:172+2014925
file      2014953  1 table L4  slow  /db/001856.sst 1:209+2014953
file      2014926  1 table L4  slow  /db/001863.sst 1:216+2014926
file      2014948  1 table L4  slow  /db/001865.sst 1:213+2014948
file       491932  1 table L4  slow  /db/001867.sst 1:218+491932
file      2015022  1 table L4  slow  /db/001959.sst 1:98+2015022
file      2015049  1 table L4  slow  /db/001961.sst 1:107+2015049
file      2015058  1 table L4  slow  /db/001965.sst 1:163+2015058
file      2015020  1 table L4  slow  /db/001967.sst 1:220+2015020
file      2470822  1 table L4  slow  /db/001968.sst 1:221+2080256 1:171+390566
file      2015036  1 table L4  slow  /db/001970.sst 1:224+2015036
file      1145765  1 table L4  slow  /db/001973.sst 1:226+1145765
file      2015057  1 table L4  slow  /db/001995.sst 1:20+2015057
file      2015022  1 table L4  slow  /db/001997.sst 1:13+2015022
file      2015035  1 table L4  slow  /db/002000.sst 1:62+2015035
file      2015029  1 table L4  slow  /db/002001.sst 1:79+2015029
file      2015033  1 table L4  slow  /db/002003.sst 1:92+2015033
file      2015013  1 table L4  slow  /db/002004.sst 1:94+2015013
file      2015024  1 table L4  slow  /db/002005.sst 1:138+2015024
file      2015030  1 table L4  slow  /db/002008.sst 1:165+2015030
file      2015026  1 table L4  slow  /db/002009.sst 1:7+2015026
file      2014997  1 table L4  slow  /db/002010.sst 1:17+2014997
file      2014993  1 table L4  slow  /db/002014.sst 1:188+2014993
file      2015041  1 table L4  slow  /db/002015.sst 1:193+2015041
file       289429  1 table L4  slow  /db/002018.sst 1:215+289429
file      2015010  1 table L4  slow  /db/002020.sst 1:231+2015010
file      2015032  1 table L4  slow  /db/002041.sst 1:38+2015032
file      2015006  1 table L4  slow  /db/002043.sst 1:53+2015006
file      2015047  1 table L4  slow  /db/002047.sst 1:59+2015047
file      2015044  1 table L4  slow  /db/002049.sst 1:83+2015044
file      2015040  1 table L4  slow  /db/002050.sst 1:86+2015040
file      2015034  1 table L4  slow  /db/002051.sst 1:104+2015034
file      1285142  1 table L4  slow  /db/002054.sst 1:119+1285142
file      2015029  1 table L4  slow  /db/002071.sst 1:60+2015029
file      2015056  1 table L4  slow  /db/002076.sst 1:71+2015056
file      2015040  1 table L4  slow  /db/002081.sst 1:151+2015040
file      2015014  1 table L4  slow  /db/002089.sst 1:167+2015014
file      2015024  1 table L4  slow  /db/002092.sst 1:182+2015024
file      2015003  1 table L4  slow  /db/002093.sst 1:190+2015003
file      2015031  1 table L4  slow  /db/002094.sst 1:198+2015031
file      2015012  1 table L4  slow  /db/002095.sst 1:236+2015012
file      2015020  1 table L4  slow  /db/002099.sst 1:239+2015020
file      2015017  1 table L4  slow  /db/002101.sst 1:240+2015017
file      1215472  1 table L4  slow  /db/002102.sst 1:241+1215472
file      2015036  1 table L4  slow  /db/002103.sst 1:242+2015036
file      1002189  1 table L4  slow  /db/002153.sst 1:207+1002189
file      2015078  1 table L4  slow  /db/002177.sst 1:183+2015078
file      2015069  1 table L4  slow  /db/002180.sst 1:12+2015069
file      2015074  1 table L4  slow  /db/002184.sst 1:232+2015074
file      2015055  1 table L4  slow  /db/002187.sst 1:237+2015055
file      2015104  1 table L4  slow  /db/002190.sst 1:244+2015104
file      1508117  1 table L3  slow  /db/002191.sst 1:245+1508117
file      1419120  1 table L4  slow  /db/002194.sst 1:246+1419120
file      2015084  1 table L3  slow  /db/002302.sst 1:41+2015084
file       522009  1 table L3  slow  /db/002305.sst 1:103+522009
file      2015120  1 table L3  slow  /db/002313.sst 1:180+2015120
file       112590  1 table L4  slow  /db/002314.sst 1:158+112590
file      1106201  1 table L3  slow  /db/002315.sst 1:186+1106201
file      2015127  1 table L4  slow  /db/002376.sst 1:26+2015127
file      2015147  1 table L4  slow  /db/002377.sst 1:39+2015147
file      1910093  1 table L4  slow  /db/002378.sst 1:42+1910093
file      1679645  1 table L3  slow  /db/002386.sst 1:120+1679645
file      2015142  1 table L4  slow  /db/002405.sst 1:156+2015142
file      2015153  1 table L4  slow  /db/002409.sst 1:199+2015153
file        83607  1 table L4  slow  /db/002410.sst 1:205+83607
file      1883349  1 table L4  slow  /db/002414.sst 1:124+1883349
file      2015154  1 table L4  slow  /db/002419.sst 1:214+2015154
file      2015106  1 table L4  slow  /db/002421.sst 1:144+2015106
file      2015130  1 table L4  slow  /db/002422.sst 1:146+2015130
file      2015153  1 table L4  slow  /db/002423.sst 1:164+2015153
file      2015141  1 table L4  slow  /db/002424.sst 1:225+2015141
file      2015167  1 table L3  slow  /db/002472.sst 1:248+2015167
file      2015140  1 table L3  slow  /db/002473.sst 1:250+2015140
file      2015152  1 table L3  slow  /db/002474.sst 1:253+2015152
file      2015157  1 table L3  slow  /db/002475.sst 1:255+2015157
file      2015121  1 table L3  slow  /db/002476.sst 1:257+2015121
file      2015145  1 table L3  slow  /db/002477.sst 1:259+2015145
file      1475958  1 table L3  slow  /db/002478.sst 1:260+1475958
file      2015147  1 table L3  slow  /db/002509.sst 1:200+2015147
file      2015153  1 table L3  slow  /db/002510.sst 1:219+2015153
file      2015153  1 table L3  slow  /db/002511.sst 1:222+2015153
file      2015151  1 table L3  slow  /db/002512.sst 1:223+2015151
file      2015151  1 table L3  slow  /db/002514.sst 1:234+2015151
file      2015149  1 table L3  slow  /db/002597.sst 1:139+2015149
file      2015151  1 table L3  slow  /db/002598.sst 1:70+2015151
file      2015158  1 table L3  slow  /db/002599.sst 1:102+2015158
file      2015138  1 table L3  slow  /db/002600.sst 1:249+2015138
file      2015164  1 table L3  slow  /db/002601.sst 1:254+2015164
file      1666802  1 table L3  slow  /db/002604.sst 1:264+1666802
file      3508452  1 table L4  slow  /db/002641.sst 1:132+2080256 1:48+921088 1:154+507108
file      2015175  1 table L3  slow  /db/002686.sst 1:37+2015175
file      2015155  1 table L3  slow  /db/002687.sst 1:63+2015155
file      2015152  1 table L3  slow  /db/002688.sst 1:150+2015152
file      2015120  1 table L3  slow  /db/002689.sst 1:247+2015120
file      2015154  1 table L3  slow  /db/002690.sst 1:268+2015154
file      1819026  1 table L3  slow  /db/002692.sst 1:269+1819026
file      2828294  1 table L4  slow  /db/003542.sst 1:252+2080256 1:211+748038
file      1419779  1 table L3  slow  /db/003664.sst 1:173+1419779
file      2015162  1 table L3  slow  /db/003666.sst 1:176+2015162
file      2015146  1 table L3  slow  /db/003667.sst 1:16+2015146
file       906826  1 table L3  slow  /db/003668.sst 1:179+906826
file      2902300  1 table L4  slow  /db/003755.sst 1:40+2080256 1:274+822044
file      2582116  1 table L3  slow  /db/003774.sst 1:35+2080256 1:274+114688 1:46+387172
file      2491982  1 table L3  slow  /db/003776.sst 1:5+2080256 1:46+411726
file        55716  1 table L4  slow  /db/003852.sst 1:137+55716
file      2518814  1 table L3  slow  /db/004013.sst 1:229+2080256 1:126+438558
file      2413606  1 table L3  slow  /db/004014.sst 1:21+2080256 1:126+20992 1:118+312358
file      1998704  1 table L3  slow  /db/004017.sst 1:256+1998704
file      2606770  1 table L3  slow  /db/004018.sst 1:85+2080256 1:118+526514
file      2520727  1 table L3  slow  /db/004019.sst 1:262+2080256 1:118+440471
file      3918514  1 table L3  slow  /db/004020.sst 1:266+2080256 1:118+799744 1:270+1038514
file      4028104  1 table L3  slow  /db/004164.sst 1:189+2080256 1:227+818176 1:210+1129672
file      4028493  1 table L3  slow  /db/004165.sst 1:89+2080256 1:210+950272 1:201+997965
file      4028854  1 table L3  slow  /db/004168.sst 1:243+2080256 1:201+1081856 1:258+866742
file       571338  1 table L3  slow  /db/004169.sst 1:279+571338
file      1458391  1 table L3  slow  /db/004253.sst 1:100+1458391
file      1445550  1 table L3  slow  /db/004254.sst 1:147+1445550
file      1518404  1 table L3  slow  /db/004292.sst 1:84+1518404
file      1420845  1 table L3  slow  /db/004293.sst 1:45+1420845
file      1831277  1 table L3  slow  /db/004336.sst 1:191+1831277
file      2805131  1 table L3  slow  /db/004337.sst 1:204+2080256 1:272+724875
file      1502332  1 table L3  slow  /db/004340.sst 1:27+1502332
file      1479776  1 table L3  slow  /db/004341.sst 1:238+1479776
file      1457316  1 table L3  slow  /db/004342.sst 1:251+1457316
file      1428420  1 table L3  slow  /db/004343.sst 1:263+1428420
file      1109091  1 table L3  slow  /db/004344.sst 1:278+1109091
file      1471243  1 table L3  slow  /db/004345.sst 1:281+1471243
file      2536008  1 table L3  slow  /db/004471.sst 1:33+2080256 1:282+21504 1:175+434248
file      2020020  1 table L3  slow  /db/004472.sst 1:178+2020020
file      1940734  1 table L3  slow  /db/004473.sst 1:275+1940734
file      1546312  1 table L3  slow  /db/004474.sst 1:284+1546312
file      1559157  1 table L3  slow  /db/004475.sst 1:285+1559157
file      1583779  1 table L3  slow  /db/004476.sst 1:286+1583779
file      1620241  1 table L3  slow  /db/004477.sst 1:287+1620241
file      2801798  1 table L3  slow  /db/004478.sst 1:288+2080256 1:175+721542
file      1212961  1 table L3  slow  /db/004509.sst 1:49+1212961
file      2373598  1 table L3  slow  /db/004510.sst 1:50+2080256 1:175+293342
file      2342462  1 table L3  slow  /db/004513.sst 1:51+2080256 1:175+262206
file      2783516  1 table L3  slow  /db/004574.sst 1:140+2080256 1:261+703260
file      1767595  1 table L3  slow  /db/004581.sst 1:122+1767595
file      3420771  1 table L3  slow  /db/004583.sst 1:157+2080256 1:261+1210368 1:160+130147
file      1854846  1 table L3  slow  /db/004615.sst 1:168+1854846
file      1741006  1 table L3  slow  /db/004618.sst 1:195+1741006
file      1731362  1 table L3  slow  /db/004619.sst 1:10+1731362
file      1713181  1 table L3  slow  /db/004620.sst 1:19+1713181
file      2078697  1 table L3  slow  /db/004621.sst 1:77+2078697
file      2007880  1 table L3  slow  /db/004622.sst 1:87+2007880
file      1915719  1 table L3  slow  /db/004623.sst 1:228+1915719
file      1729224  1 table L3  slow  /db/004638.sst 1:212+1729224
file      1709913  1 table L3  slow  /db/004639.sst 1:148+1709913
file      1757986  1 table L3  slow  /db/004640.sst 1:217+1757986
file      2305412  1 table L3  slow  /db/004643.sst 1:230+2080256 1:160+225156
file      2113730  1 table L3  slow  /db/004644.sst 1:131+2080256 1:160+33474
file      2033149  1 table L3  slow  /db/004645.sst 1:134+2033149
file      1903765  1 table L3  slow  /db/004646.sst 1:233+1903765
file      2191685  1 table L3  slow  /db/004647.sst 1:265+2080256 1:160+111429
file      2392871  1 table L3  slow  /db/004679.sst 1:235+2080256 1:160+312615
file      2033330  1 table L3  slow  /db/004680.sst 1:267+2033330
file      1854350  1 table L3  slow  /db/004681.sst 1:271+1854350
file      1527846  1 table L3  slow  /db/004684.sst 1:18+1527846
file      1793538  1 table L3  slow  /db/004685.sst 1:273+1793538
file      1759280  1 table L3  slow  /db/004686.sst 1:276+1759280
file      2094347  1 table L3  slow  /db/004700.sst 1:58+2080256 1:160+14091
file      1782631  1 table L3  slow  /db/004701.sst 1:68+1782631
file      1736494  1 table L3  slow  /db/004702.sst 1:76+1736494
file      2082481  1 table L3  slow  /db/004703.sst 1:109+2080256 1:160+2225
file      1826919  1 table L2  fast  /db/004713.sst 0:18+1826919
file      1919215  1 table L2  slow  /db/004714.sst 1:43+1919215
file       183148  1 table L2  slow  /db/004715.sst 1:56+183148
file      1857000  1 table L2  fast  /db/004717.sst 0:9+1857000
file      1759537  1 table L2  fast  /db/004718.sst 0:13+1759537
file      2749472  1 table L3  slow  /db/004728.sst 1:114+2080256 1:160+669216
file      2676488  1 table L3  slow  /db/004729.sst 1:116+2080256 1:160+579584 1:117+16648
file      2471664  1 table L3  slow  /db/004730.sst 1:123+2080256 1:117+391408
file      2898521  1 table L3  slow  /db/004732.sst 1:133+2080256 1:117+818265
file      2573490  1 table L3  slow  /db/004733.sst 1:153+2080256 1:117+493234
file      1820503  1 table L3  slow  /db/004734.sst 1:169+1820503
file      1214634  1 table L1  fast  /db/004753.sst 0:11+1214634
file      2180565  1 table L2  mixed /db/004754.sst 0:15+2080256 1:117+100309
file      2490364  1 table L2  slow  /db/004755.sst 1:44+2080256 1:117+259072 1:54+151036
file      1904821  1 table L2  fast  /db/004756.sst 0:5+1904821
file      1957013  1 table L2  fast  /db/004758.sst 0:23+1957013
file      1926116  1 table L2  slow  /db/004759.sst 1:88+1926116
file      1825450  1 table L2  slow  /db/004760.sst 1:95+1825450
file      1846637  1 table L2  slow  /db/004761.sst 1:96+1846637
file       751390  1 table L2  slow  /db/004762.sst 1:110+751390
file       599909  1 wal   -   fast  /db/004764.log 0:12+599909
file      1868511  1 table L0  fast  /db/004765.sst 0:4+1868511
file           16  1 data  -   fast  /db/CURRENT 0:10+16
file           36  1 data  -   fast  /db/IDENTITY 0:10+36
file            0  1 data  -   -     /db/LOCK
file      5423221  1 data  -   mixed /db/LOG 0:24+116596 0:10+8854 0:10+19632 0:10+19782 1:15+63488 1:14+1903616 1:2+2017280 1:66+1273973
file      5728047  1 data  -   mixed /db/LOG.old.1795981471391137 0:10+1362 0:10+5514 0:10+29199 0:10+108258 0:10+20531 1:4+2080256 1:31+2080256 1:15+1402671
file       286583  1 data  -   fast  /db/MANIFEST-002438 0:24+1721 0:24+5379 0:24+28228 0:24+34304 0:24+174592 0:24+11776 0:24+4096 0:10+20992 0:10+4096 0:10+1399
file         6948  1 data  -   fast  /db/OPTIONS-000007 0:10+3268 0:10+3680
file         6948  1 data  -   fast  /db/OPTIONS-002440 0:10+6948
